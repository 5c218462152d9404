package org.jrdma.bench;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round trip of an 8-byte RC SEND pingpong between two hw-rxe devices on loopback addresses (b answers
 * from its completion handler, as a server ULP does), against a plain UDP pingpong of the same datagram
 * size (24 bytes: BTH + 8 + ICRC) between two blocking sockets on the same kind of addresses (b answers
 * from a thread blocked in receive). One operation is one round trip; half of it is the latency.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2) // C2 competes for the two cores early on
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RxePingpongBench {
    static final int DEPTH = 64;

    @State(Scope.Thread)
    public static class Rc {
        RxePair pair;
        SendWr ping;
        SendWr pong;
        RecvWr[] recvA;
        RecvWr[] recvB;
        final WorkCompletion[] wcA = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        final WorkCompletion[] wcB = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        /** Answers a has received; the benchmark thread sleeps until it moves (as a blocked UDP receive). */
        volatile long answers;
        volatile Thread waiter;
        boolean pollA;
        /** Round trips a's handler still starts on its own (chained mode; 0: the benchmark thread starts each). */
        int chain;

        @Setup(Level.Trial)
        public void setup() {
            pair = new RxePair(1 << 16, DEPTH, pollA ? null : cq -> {
                // a: count b's answers, repost the receive, wake the benchmark thread
                int n;
                while ((n = cq.poll(wcA)) > 0) {
                    for (int i = 0; i < n; i++) {
                        WorkCompletion w = wcA[i];
                        if (w.status() == WcStatus.SUCCESS && w.opcode() == WcOpcode.RECV) {
                            pair.a.qp.postRecv(recvA[(int) w.wrId()]);
                            answers++;
                            if (chain > 0) {
                                chain--;
                                pair.a.qp.postSend(ping);
                            } else {
                                LockSupport.unpark(waiter);
                            }
                        }
                    }
                }
                cq.reqNotify(CqNotify.NEXT_COMP, false);
            }, cq -> {
                // b: every received ping is answered at once, from the completion path (a server ULP)
                int n;
                while ((n = cq.poll(wcB)) > 0) {
                    for (int i = 0; i < n; i++) {
                        WorkCompletion w = wcB[i];
                        if (w.status() != WcStatus.SUCCESS) {
                            return; // flushed at tear-down
                        }
                        if (w.opcode() == WcOpcode.RECV) {
                            pair.b.qp.postRecv(recvB[(int) w.wrId()]);
                            pair.b.qp.postSend(pong);
                        }
                    }
                }
                cq.reqNotify(CqNotify.NEXT_COMP, false);
            });
            ping = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.INLINE)
                    .sgList(new Sge(pair.a.mr.iova(), 8, pair.a.mr.lkey()));
            pong = new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.INLINE)
                    .sgList(new Sge(pair.b.mr.iova(), 8, pair.b.mr.lkey()));
            recvA = new RecvWr[DEPTH / 2];
            recvB = new RecvWr[DEPTH / 2];
            for (int i = 0; i < DEPTH / 2; i++) {
                recvA[i] = new RecvWr().wrId(i).sgList(new Sge(pair.a.mr.iova() + 64 + i * 64, 64, pair.a.mr.lkey()));
                recvB[i] = new RecvWr().wrId(i).sgList(new Sge(pair.b.mr.iova() + 64 + i * 64, 64, pair.b.mr.lkey()));
                pair.a.qp.postRecv(recvA[i]);
                pair.b.qp.postRecv(recvB[i]);
            }
            if (!pollA) {
                pair.a.cq.reqNotify(CqNotify.NEXT_COMP, false);
            }
            pair.b.cq.reqNotify(CqNotify.NEXT_COMP, false);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    /** a sends 8 bytes (unsignaled) and sleeps until b's 8-byte answer is in its CQ. */
    @Benchmark
    public long rcPingpong(Rc s) {
        long before = s.answers;
        s.waiter = Thread.currentThread();
        s.pair.a.qp.postSend(s.ping);
        while (s.answers == before) {
            LockSupport.park();
        }
        return s.answers;
    }

    /**
     * As ibv_rc_pingpong does by default (no -e): a has no completion handler, the benchmark thread
     * polls a's CQ until b's answer is there. b still answers from its completion handler.
     */
    @State(Scope.Thread)
    public static class RcPoll extends Rc {
        @Override
        @Setup(Level.Trial)
        public void setup() {
            pollA = true;
            super.setup();
        }
    }

    @Benchmark
    public long rcPingpongPoll(RcPoll s) {
        s.pair.a.qp.postSend(s.ping);
        WorkCompletion[] wc = s.wcA;
        while (true) {
            int n = s.pair.a.cq.poll(wc);
            for (int i = 0; i < n; i++) {
                WorkCompletion w = wc[i];
                if (w.opcode() == WcOpcode.RECV) {
                    s.pair.a.qp.postRecv(s.recvA[(int) w.wrId()]);
                    return ++s.answers;
                }
            }
            Thread.onSpinWait();
        }
    }

    static final int CHAIN = 100;

    /**
     * {@value #CHAIN} round trips driven by the completion handlers on both sides (a's handler sends the
     * next ping from its completion path, as b answers): each side reacts on the thread that received,
     * as both sides of the blocking UDP pingpong do. The benchmark thread only waits for the chain's end.
     */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public long rcPingpongChained(Rc s) {
        long before = s.answers;
        s.waiter = Thread.currentThread();
        s.chain = CHAIN - 1;
        s.pair.a.qp.postSend(s.ping);
        while (s.answers - before < CHAIN) {
            LockSupport.park();
        }
        return s.answers;
    }

    @State(Scope.Thread)
    public static class Udp {
        DatagramChannel a;
        DatagramChannel b;
        Thread echo;
        ByteBuffer out = ByteBuffer.allocateDirect(24);
        ByteBuffer in = ByteBuffer.allocateDirect(64);
        InetSocketAddress addrB;

        @Setup(Level.Trial)
        public void setup() throws Exception {
            open(false);
        }

        /**
         * Binds a and b and starts b's echo thread; {@code spinning}: both sockets non-blocking, the echo
         * thread spinning on its receive.
         */
        void open(boolean spinning) throws Exception {
            String net = RxePair.randomLoopbackNet();
            a = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(net + "1", UdpPair.PORT));
            b = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(net + "2", UdpPair.PORT));
            a.configureBlocking(!spinning);
            b.configureBlocking(!spinning);
            addrB = new InetSocketAddress(net + "2", UdpPair.PORT);
            echo = new Thread(() -> {
                ByteBuffer buf = ByteBuffer.allocateDirect(64);
                try {
                    while (b.isOpen()) {
                        buf.clear();
                        java.net.SocketAddress from = b.receive(buf);
                        if (from == null) { // non-blocking and nothing there
                            Thread.onSpinWait();
                            continue;
                        }
                        buf.flip();
                        b.send(buf, from);
                    }
                } catch (java.io.IOException e) {
                    // closed: done
                }
            }, spinning ? "udp-echo-spin" : "udp-echo");
            echo.setDaemon(true);
            echo.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            b.close();
            a.close();
            echo.join(2000);
        }
    }

    @Benchmark
    public int udpPingpong(Udp s) throws Exception {
        s.out.clear();
        s.a.send(s.out, s.addrB);
        s.in.clear();
        s.a.receive(s.in);
        return s.in.position();
    }

    /**
     * {@value #CHAIN} round trips of the blocking UDP pingpong per invocation: the baseline of
     * {@link #rcPingpongChained}, timed the same way (its samples are 100-trip means too).
     */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public int udpPingpongChained(Udp s) throws Exception {
        int n = 0;
        for (int i = 0; i < CHAIN; i++) {
            n += udpPingpong(s);
        }
        return n;
    }

    /** The plain UDP pingpong with a spinning on a non-blocking receive (the polling counterpart). */
    @State(Scope.Thread)
    public static class UdpSpin extends Udp {
        @Override
        @Setup(Level.Trial)
        public void setup() throws Exception {
            super.setup();
            a.configureBlocking(false);
        }
    }

    @Benchmark
    public int udpPingpongSpin(UdpSpin s) throws Exception {
        s.out.clear();
        s.a.send(s.out, s.addrB);
        s.in.clear();
        while (s.a.receive(s.in) == null) {
            Thread.onSpinWait();
        }
        return s.in.position();
    }

    /**
     * The busy-polling counterpart of the chained pingpong's transport: both ends spin on non-blocking
     * receives (the echo thread too), so neither waits for a wakeup; compare with rcPingpongChained run
     * with {@code -Djrdma.rxe.net.busyPoll=true}, where both rxe receive threads spin on their sockets.
     */
    @State(Scope.Thread)
    public static class UdpSpinBoth extends Udp {
        @Override
        @Setup(Level.Trial)
        public void setup() throws Exception {
            open(true);
        }
    }

    @Benchmark
    public int udpPingpongSpinBoth(UdpSpinBoth s) throws Exception {
        s.out.clear();
        s.a.send(s.out, s.addrB);
        s.in.clear();
        while (s.a.receive(s.in) == null) {
            Thread.onSpinWait();
        }
        return s.in.position();
    }

    @State(Scope.Thread)
    public static class NettyUdp {
        UdpPair pair;
        io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.directBuffer(24).writeZero(24);

        @Setup(Level.Trial)
        public void setup() throws Exception {
            pair = new UdpPair(RxePair.randomLoopbackNet(), true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    /** The chained pingpong through Netty event loops: a's loop sends the next datagram itself. */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public long nettyUdpPingpongChained(NettyUdp s) {
        long before = s.pair.repliesA;
        s.pair.waiter = Thread.currentThread();
        s.pair.chain = CHAIN - 1;
        s.pair.a.writeAndFlush(new io.netty.channel.socket.DatagramPacket(s.out.retainedDuplicate(), s.pair.addrB),
                s.pair.a.voidPromise());
        while (s.pair.repliesA - before < CHAIN) {
            LockSupport.park();
        }
        return s.pair.repliesA;
    }

}
