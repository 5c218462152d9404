package org.jrdma.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * hw-rxe RDMA WRITE, READ and SEND bandwidth between two devices on loopback addresses (RoCEv2 over real
 * UDP, IB MTU 4096 from lo's MTU), against two ceilings measured in the same run over the same kind of
 * addresses:
 * <ul>
 * <li>{@link #udpBlast}: a plain Netty UDP blast of the datagrams rxe sends for one message of that size
 * (WRITE FIRST with RETH, then MIDDLE/LAST: BTH + payload + ICRC), the transport's ceiling;</li>
 * <li>{@link #tcpStream}: a single-stream TCP transfer of the same bytes (blocking socket channels, a
 * receiver thread draining the other end).</li>
 * </ul>
 * One operation is one message of {@code size} bytes; the score times {@code size} is the bandwidth.
 * RDMA posts chains of {@link #BATCH} (last one signaled) with {@link #WINDOW} chains in flight; TCP
 * writes the same 16 messages with one gathering write; the UDP blast keeps a window of packets.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RxeBandwidthBench {
    static final int MTU = 4096;
    static final int BATCH = 16;
    static final int WINDOW = 4;
    static final int BUFFER = 16 << 20;

    /** Offset of the next message in a {@link #BUFFER}-byte region (wraps). */
    static int advance(int[] offset, int size) {
        int o = offset[0];
        offset[0] += size;
        if (offset[0] + size > BUFFER) {
            offset[0] = 0;
        }
        return o;
    }

    @State(Scope.Thread)
    public static class Rxe {
        @Param({"WRITE", "READ", "SEND"})
        public String op;
        @Param({"64", "4096", "65536", "1048576"})
        public int size;
        /**
         * How the benchmark thread waits for a chain's completion: {@code poll} spins on the CQ with
         * {@code Thread.yield()} (perftest's default), {@code events} sleeps until a's completion handler wakes
         * it (perftest's {@code -e}; the TCP baseline's threads block too).
         */
        @Param({"poll", "events"})
        public String wait;

        RxePair pair;
        CqEvents events;
        final SendWr[] chain = new SendWr[BATCH];
        final Sge[] sges = new Sge[BATCH];
        final int[] offset = {0};
        int inflight;
        RecvWr[] recvB;
        final WorkCompletion[] wcB = new WorkCompletion[16];

        @Setup(Level.Trial)
        public void setup() {
            int depth = BATCH * (WINDOW + 1);
            boolean send = op.equals("SEND");
            for (int i = 0; i < wcB.length; i++) {
                wcB[i] = new WorkCompletion();
            }
            // SEND: b reposts each consumed receive from its completion handler (as a server ULP does)
            events = wait.equals("events") ? new CqEvents() : null;
            pair = new RxePair(BUFFER, depth, events, !send ? null : cq -> {
                int n;
                while ((n = cq.poll(wcB)) > 0) {
                    for (int i = 0; i < n; i++) {
                        if (wcB[i].status() != WcStatus.SUCCESS) {
                            return; // flushed at tear-down
                        }
                        if (wcB[i].opcode() == WcOpcode.RECV) {
                            pair.b.qp.postRecv(recvB[(int) wcB[i].wrId()]);
                        }
                    }
                }
                cq.reqNotify(CqNotify.NEXT_COMP, false);
            }, op.equals("READ") ? 128 : 1); // READ: perftest's default -o, the device's max_qp_rd_atom
            WrOpcode opcode = WrOpcode.valueOf(op.equals("WRITE") ? "RDMA_WRITE" : op.equals("READ") ? "RDMA_READ" : "SEND");
            for (int i = BATCH - 1; i >= 0; i--) {
                sges[i] = new Sge(0, size, pair.a.mr.lkey());
                chain[i] = new SendWr().wrId(i).opcode(opcode).sgList(sges[i])
                        .sendFlags(i == BATCH - 1 ? SendFlags.SIGNALED : 0).next(i == BATCH - 1 ? null : chain[i + 1]);
            }
            if (events != null) {
                events.arm(pair.a.cq);
            }
            if (send) {
                recvB = new RecvWr[depth];
                int[] ro = {0};
                for (int i = 0; i < depth; i++) {
                    recvB[i] = new RecvWr().wrId(i).sgList(new Sge(pair.b.mr.iova() + advance(ro, size), size, pair.b.mr.lkey()));
                    pair.b.qp.postRecv(recvB[i]);
                }
                pair.b.cq.reqNotify(CqNotify.NEXT_COMP, false);
            }
        }

        void await(int n) {
            if (events != null) {
                events.await(n);
            } else {
                pair.a.await(n);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            await(inflight);
            pair.close();
        }
    }

    /** RDMA WRITE, READ or SEND of {@code size} bytes from a to b (READ: from b's memory into a's). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void rdma(Rxe s) {
        for (int i = 0; i < BATCH; i++) {
            long o = advance(s.offset, s.size);
            s.sges[i].addr(s.pair.a.mr.iova() + o);
            s.chain[i].remote(s.pair.b.mr.iova() + o, s.pair.b.mr.rkey());
        }
        if (s.inflight == WINDOW) {
            s.await(1);
            s.inflight--;
        }
        s.pair.a.qp.postSend(s.chain[0]);
        s.inflight++;
    }

    @State(Scope.Thread)
    public static class Udp {
        @Param({"64", "4096", "65536", "1048576"})
        public int size;

        UdpPair pair;
        ByteBuf src;
        long sent;
        int[] lens;
        int window;

        @Setup(Level.Trial)
        public void setup() throws Exception {
            pair = new UdpPair(RxePair.randomLoopbackNet(), false);
            int n = Math.max(1, (size + MTU - 1) / MTU);
            lens = new int[n];
            for (int i = 0; i < n; i++) {
                int payload = Math.min(MTU, size - i * MTU);
                // BTH + RETH + payload + ICRC (WRITE FIRST/ONLY), BTH + payload + ICRC (MIDDLE/LAST)
                lens[i] = 12 + (i == 0 ? 16 : 0) + payload + 4;
            }
            window = Math.max(128, 2 * n);
            src = Unpooled.directBuffer(lens[0]).writeZero(lens[0]);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
            src.release();
        }
    }

    /** One message's datagrams, written and flushed in one event loop task, with a window of packets. */
    @Benchmark
    public void udpBlast(Udp s) {
        int n = s.lens.length;
        long deadline = 0;
        while (s.sent - s.pair.receivedB.get() > s.window - n) {
            if (deadline == 0) {
                deadline = System.nanoTime() + 10_000_000L;
            } else if (System.nanoTime() - deadline > 0) {
                s.sent = s.pair.receivedB.get(); // lost datagrams: do not wait for them
                break;
            }
            Thread.yield();
        }
        s.sent += n;
        s.pair.a.eventLoop().execute(() -> {
            for (int i = 0; i < n; i++) {
                s.pair.a.write(s.pair.toB(s.src, s.lens[i]), s.pair.a.voidPromise());
            }
            s.pair.a.flush();
        });
    }

    @State(Scope.Thread)
    public static class Tcp {
        static final int PORT = 4793;
        @Param({"64", "4096", "65536", "1048576"})
        public int size;

        ServerSocketChannel server;
        SocketChannel client;
        SocketChannel peer;
        Thread drain;
        final AtomicLong received = new AtomicLong();
        ByteBuffer src;
        final ByteBuffer[] batch = new ByteBuffer[BATCH];
        final int[] offset = {0};

        @Setup(Level.Trial)
        public void setup() throws Exception {
            String net = RxePair.randomLoopbackNet();
            server = ServerSocketChannel.open().bind(new InetSocketAddress(net + "2", PORT));
            client = SocketChannel.open();
            client.bind(new InetSocketAddress(net + "1", 0));
            client.connect(new InetSocketAddress(net + "2", PORT));
            peer = server.accept();
            src = ByteBuffer.allocateDirect(BUFFER);
            for (int i = 0; i < BATCH; i++) {
                batch[i] = src.duplicate();
            }
            drain = new Thread(() -> {
                ByteBuffer in = ByteBuffer.allocateDirect(1 << 20);
                try {
                    int r;
                    while ((r = peer.read(in)) >= 0) {
                        received.addAndGet(r);
                        in.clear();
                    }
                } catch (IOException e) {
                    // closed: done
                }
            }, "tcp-drain");
            drain.setDaemon(true);
            drain.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            client.close();
            drain.join(2000);
            peer.close();
            server.close();
        }
    }

    /** 16 messages of {@code size} bytes in one gathering write on one TCP connection. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long tcpStream(Tcp s) throws IOException {
        for (int i = 0; i < BATCH; i++) {
            int o = advance(s.offset, s.size);
            s.batch[i].clear().position(o).limit(o + s.size);
        }
        long left = (long) BATCH * s.size;
        while (left > 0) {
            left -= s.client.write(s.batch);
        }
        return left;
    }
}
