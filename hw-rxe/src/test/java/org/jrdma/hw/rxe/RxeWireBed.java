package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.Icrc;
import org.jrdma.hw.rxe.wire.RxeDecodeStatus;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.WorkCompletion;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;

/**
 * One RxeDevice whose wire only records: the test plays the peer, feeding packets it built or took from a
 * Linux capture into {@link RxeDevice#rcv} (ICRC recomputed for the addresses used here) and reading what
 * the device sent. Used by the capture replays and the hostile-packet suite.
 */
final class RxeWireBed implements AutoCloseable {
    static {
        LeakCheck.install();
    }

    static final int ALL_ACCESS = RxeFabric.ALL_ACCESS;

    /** A packet the device sent: the UDP payload (BTH .. ICRC) and where it went. */
    record Sent(InetAddress src, InetAddress dst, int srcPort, byte[] bytes) {
        /** A decoded view; valid until the next call on the same {@code into}. */
        RxePacket decode(RxePacket into) {
            RxeDecodeStatus s = into.decode(Unpooled.wrappedBuffer(bytes));
            assertEquals(RxeDecodeStatus.OK, s, "the device sent an undecodable packet");
            return into;
        }

        RxePacket pkt() {
            return decode(new RxePacket());
        }

        @Override
        public String toString() {
            return pkt().toString();
        }
    }

    /**
     * Records every packet (a copy) and releases the buffer, as a real wire would. A gathering one takes gathered
     * packets ({@link RxeGather}) and records them joined.
     */
    static final class CaptureWire implements RxeWire {
        final LinkedBlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
        final boolean gathering;
        /** Gathered packets recorded. */
        final java.util.concurrent.atomic.AtomicInteger gathered = new java.util.concurrent.atomic.AtomicInteger();

        CaptureWire(boolean gathering) {
            this.gathering = gathering;
        }

        @Override
        public boolean gathers() {
            return gathering;
        }

        @Override
        public void sendGathered(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf head,
                int hdrLen, ByteBuffer payload, int payloadIndex, int payloadLen) {
            gathered.incrementAndGet();
            RxeWire.super.sendGathered(from, src, dst, srcPort, head, hdrLen, payload, payloadIndex, payloadLen);
        }

        @Override
        public void send(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf packet) {
            byte[] b = new byte[packet.readableBytes()];
            packet.getBytes(packet.readerIndex(), b);
            packet.release();
            sent.add(new Sent(src, dst, srcPort, b));
        }
    }

    final IbCore core = IbCore.newInstance();
    final CaptureWire wire;
    final InetAddress local;
    final InetAddress peer;
    final RxeDevice rxe;
    final IbDevice dev;
    final IbClient ulp = new IbClient() {
        public String name() {
            return "rxe-wire-bed";
        }

        public void add(IbDevice device) {
        }

        public void remove(IbDevice device, Object data) {
        }
    };
    private final List<Side> sides = new ArrayList<>();
    private final Icrc icrc = new Icrc();

    /** A device at {@code local} (netdev MTU 1500: active MTU 1024, as in the captures); the peer is {@code peer}. */
    RxeWireBed(String local, String peer) throws Exception {
        this(local, peer, false);
    }

    /** @param gathering whether the wire takes gathered packets (as NettyWire with GSO) */
    RxeWireBed(String local, String peer, boolean gathering) throws Exception {
        this.wire = new CaptureWire(gathering);
        this.local = InetAddress.getByName(local);
        this.peer = InetAddress.getByName(peer);
        rxe = new RxeDevice("rxe%d", List.of(this.local), 1500, 0x02_00_00_00_00_0bL, wire);
        dev = rxe.register(core.registrar()).device();
        core.registerClient(ulp);
    }

    /** A PD (or the given one), a CQ, a QP and one registered buffer. */
    final class Side {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf;
        final MemoryRegion mr;
        private final boolean ownPd;
        private final WorkCompletion[] wc = {new WorkCompletion()};

        Side(ProtectionDomain sharedPd, QpType type, int bufBytes, int access) {
            ownPd = sharedPd == null;
            pd = ownPd ? dev.allocPd(ulp) : sharedPd;
            cq = dev.createCq(ulp, new CqInitAttr().cqe(256));
            qp = pd.createQp(new QpInitAttr().qpType(type).cq(cq)
                    .cap(new QpCap().maxSendWr(32).maxRecvWr(32).maxSendSge(2).maxRecvSge(2).maxInlineData(64)));
            buf = ByteBuffer.allocateDirect(bufBytes);
            mr = pd.regMr(buf, access);
            sides.add(this);
        }

        int qpn() {
            return qp.qpNum();
        }

        /** The next completion, or an AssertionError after {@code ms}. */
        WorkCompletion next(long ms) {
            WorkCompletion w = poll(ms);
            if (w == null) {
                throw new AssertionError("no completion within " + ms + " ms; counters: " + rxe.counters());
            }
            return w;
        }

        /** Null if no completion arrives within {@code ms}. */
        WorkCompletion poll(long ms) {
            long end = System.nanoTime() + ms * 1_000_000L;
            do {
                if (cq.poll(wc) == 1) {
                    return new WorkCompletion().copyFrom(wc[0]);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            } while (System.nanoTime() - end < 0);
            return null;
        }

        void destroy() {
            qp.destroy();
            mr.dereg();
            cq.destroy();
        }
    }

    Side side(QpType type, int bufBytes) {
        return new Side(null, type, bufBytes, ALL_ACCESS);
    }

    /** RC/UC connection parameters (the pyverbs and perftest values by default). */
    static final class Conn {
        int destQpn;
        int rqPsn;
        int sqPsn;
        int timeout = 14;
        int retryCnt = 7;
        int rnrRetry = 7;
        int minRnrTimer = 14;
        int rdAtomic = 16;
        int access = ALL_ACCESS;

        Conn(int destQpn, int rqPsn, int sqPsn) {
            this.destQpn = destQpn;
            this.rqPsn = rqPsn;
            this.sqPsn = sqPsn;
        }
    }

    /** INIT -> RTR -> RTS towards the peer address. */
    void connect(Side s, Conn c) {
        s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(c.access));
        toRtr(s, c);
        if (s.qp.qpType() == QpType.UC) {
            s.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(c.sqPsn));
        } else {
            s.qp.modify(new QpAttr().state(QpState.RTS).timeout(c.timeout).retryCnt(c.retryCnt)
                    .rnrRetry(c.rnrRetry).sqPsn(c.sqPsn).maxRdAtomic(c.rdAtomic));
        }
        assertEquals(QpState.RTS, s.qp.state());
    }

    void toRtr(Side s, Conn c) {
        QpAttr a = new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(1).grh(Gid.of(peer), 0))
                .pathMtu(dev.queryPort(1).activeMtu()).destQpNum(c.destQpn).rqPsn(c.rqPsn);
        if (s.qp.qpType() != QpType.UC) {
            a.maxDestRdAtomic(c.rdAtomic).minRnrTimer(c.minRnrTimer);
        }
        s.qp.modify(a);
    }

    /** UD/GSI-style QP to RTS with {@code qkey}. */
    void connectUd(Side s, int qkey) {
        s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(qkey));
        s.qp.modify(new QpAttr().state(QpState.RTR));
        s.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
    }

    // ---------------------------------------------------------------- packets in

    /**
     * Feeds {@code udpPayload} (BTH .. ICRC) from the peer, from UDP port {@code srcPort}, with its ICRC
     * recomputed for the addresses of this bed (as the peer's rxe would have computed it, IPv4 ID 0).
     */
    void inject(byte[] udpPayload, int srcPort) {
        injectFrom(peer, udpPayload, srcPort);
    }

    /** As {@link #inject}, from the address {@code src} (its ICRC computed over that address). */
    void injectFrom(InetAddress src, byte[] udpPayload, int srcPort) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(udpPayload.length);
        b.writeBytes(udpPayload);
        if (udpPayload.length >= Bth.BYTES + org.jrdma.hw.rxe.wire.RxeWire.ICRC_BYTES) {
            Icrc.store(b, 0, b.writerIndex(), RxeXmit.icrc(icrc, b, 0, b.writerIndex(), src, local, srcPort));
        }
        rxe.rcv(b, src, local, srcPort);
    }

    /** Feeds the bytes as they are (no ICRC fix-up). */
    void injectRaw(byte[] udpPayload, int srcPort) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(Math.max(udpPayload.length, 1));
        b.writeBytes(udpPayload);
        rxe.rcv(b, peer, local, srcPort);
    }

    /** A packet of {@code op} with a zeroed body of {@code payload} bytes (pad set), BTH filled in. */
    static byte[] packet(RxeOpcode op, int qpn, int psn, boolean ackReq, int payload) {
        int len = org.jrdma.hw.rxe.wire.RxeWire.udpPayloadLength(op, payload);
        ByteBuf b = Unpooled.wrappedBuffer(new byte[len]);
        Bth.encode(b, 0, op.value(), false, false, org.jrdma.hw.rxe.wire.RxeWire.padFor(payload), 0xffff, qpn, ackReq,
                psn);
        return b.array();
    }

    // ---------------------------------------------------------------- packets out

    /** The next packet the device sends, or an AssertionError after {@code ms}. */
    Sent next(long ms) throws InterruptedException {
        Sent s = wire.sent.poll(ms, TimeUnit.MILLISECONDS);
        if (s == null) {
            throw new AssertionError("the device sent nothing within " + ms + " ms; counters: " + rxe.counters());
        }
        return s;
    }

    /** The next packet the device sends, decoded (it must decode cleanly). */
    RxePacket nextPacket(long ms) throws InterruptedException {
        RxePacket p = new RxePacket();
        org.junit.jupiter.api.Assertions.assertEquals(org.jrdma.hw.rxe.wire.RxeDecodeStatus.OK,
                p.decode(Unpooled.wrappedBuffer(next(ms).bytes())));
        return p;
    }

    /** Injects the peer's ACK or NAK ({@code syndrome}) for {@code qpn} at {@code psn} with {@code msn}. */
    void injectAck(int qpn, int syndrome, int psn, int msn) {
        byte[] b = packet(RxeOpcode.RC_ACKNOWLEDGE, qpn, psn, false, 0);
        org.jrdma.hw.rxe.wire.Aeth.encode(Unpooled.wrappedBuffer(b), RxeOpcode.RC_ACKNOWLEDGE.aethOffset(), syndrome,
                msn);
        inject(b, 50000);
    }

    /** Asserts that the device sends nothing for {@code ms}. */
    void quiet(long ms) throws InterruptedException {
        Sent s = wire.sent.poll(ms, TimeUnit.MILLISECONDS);
        if (s != null) {
            throw new AssertionError("unexpected packet " + s);
        }
    }

    long counter(RxeCounter c) {
        return rxe.counters().get(c);
    }

    /** Waits until {@code cond} holds (the engine runs on its own thread). */
    static void await(String what, BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            for (Side s : sides) {
                s.destroy();
            }
            for (Side s : sides) {
                if (s.ownPd) {
                    s.pd.dealloc();
                }
            }
        } catch (RuntimeException e) {
            // a test that failed half-way: unregistration reaps the rest
        }
        rxe.close();
        wire.sent.clear(); // copies: the wire released every buffer already
    }
}
