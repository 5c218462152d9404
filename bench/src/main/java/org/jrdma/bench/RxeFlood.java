package org.jrdma.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.ThreadLocalRandom;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.jrdma.hw.rxe.RxeDevice;
import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.Deth;
import org.jrdma.hw.rxe.wire.Icrc;
import org.jrdma.hw.rxe.wire.Reth;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxeWire;

/**
 * A hostile peer on one thread: forged RoCEv2 packets with valid ICRCs, sent as fast as one UDP socket goes to a
 * device's port 4791, of one {@link Kind}. What the device does with them is its business: drop and count.
 */
final class RxeFlood implements AutoCloseable {
    enum Kind {
        /** SEND ONLY to QPNs that do not exist (rxe_rcv: no QP, dropped). */
        UNKNOWN_QPN,
        /**
         * RDMA READ requests for 2 GiB to the live RC QP, from its peer's address (spoofed), with PSNs behind the
         * responder's (duplicates: rxe looks for the resource, finds none, drops).
         */
        DUPLICATE_READS,
        /** UD SEND ONLY datagrams to a UD QP with no receive posted (dropped, counted). */
        UD_DATAGRAMS,
        /**
         * CM REQs as rdma_cm sends them (a MAD on QP1, the CMA header for {@link #CM_PORT}) with random comm IDs,
         * QPNs and source ports, from an address nobody answers at: the MAD layer, the IB CM and the RDMA CM's
         * listener (whose handler refuses every request) do their work for each; their answers go nowhere.
         */
        CM_REQS
    }

    /** The port the RDMA CM listener of {@link Kind#CM_REQS} listens on (rping's). */
    static final int CM_PORT = 7174;

    private static final int POOL = 256;
    private final Kind kind;
    private final DatagramChannel ch;
    private final InetSocketAddress to;
    private final InetAddress from;
    private final InetAddress dst;
    private final int srcAddr;
    private final int dstAddr;
    private final int srcPort;
    private final Icrc icrc = new Icrc();
    private final int qpn;
    private final long va;
    private final int rkey;
    private final java.util.function.IntSupplier expectedPsn;
    private final Thread thread;
    private volatile boolean stop;
    volatile long sent;

    /**
     * @param from        the address the packets come from (the live QP's peer for {@link Kind#DUPLICATE_READS})
     * @param qpn         the target QP ({@link Kind#DUPLICATE_READS}, {@link Kind#UD_DATAGRAMS})
     * @param expectedPsn the responder's expected PSN, read now and then ({@link Kind#DUPLICATE_READS})
     */
    RxeFlood(Kind kind, InetAddress from, InetAddress dst, int qpn, long va, int rkey,
            java.util.function.IntSupplier expectedPsn) throws IOException {
        this.kind = kind;
        this.ch = DatagramChannel.open();
        ch.bind(new InetSocketAddress(from, 0));
        this.srcPort = ((InetSocketAddress) ch.getLocalAddress()).getPort();
        this.to = new InetSocketAddress(dst, RxeWire.ROCE_V2_UDP_DPORT);
        this.from = from;
        this.dst = dst;
        this.srcAddr = RxeDevice.v4(from);
        this.dstAddr = RxeDevice.v4(dst);
        this.qpn = qpn;
        this.va = va;
        this.rkey = rkey;
        this.expectedPsn = expectedPsn;
        this.thread = new Thread(this::run, "rxe-flood-" + kind);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        ByteBuffer[] pool = new ByteBuffer[POOL];
        try {
            for (long n = 0; !stop; n++) {
                int i = (int) (n % POOL);
                if (i == 0) {
                    fill(pool);
                }
                ch.send(pool[i].duplicate(), to);
                sent = n + 1;
            }
        } catch (IOException e) {
            if (!stop) {
                System.err.println("flood stopped: " + e);
            }
        }
    }

    /** A fresh pool of packets: new random QPNs/PSNs, duplicates behind the responder's current PSN. */
    private void fill(ByteBuffer[] pool) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int behind = kind == Kind.DUPLICATE_READS ? expectedPsn.getAsInt() : 0;
        for (int i = 0; i < pool.length; i++) {
            pool[i] = switch (kind) {
                case UNKNOWN_QPN -> seal(packet(RxeOpcode.RC_SEND_ONLY, 0x800000 + r.nextInt(0x7fffff), r.nextInt(1 << 24), 64), null);
                case DUPLICATE_READS -> read((behind - 1 - r.nextInt(1 << 20)) & 0xffffff);
                case UD_DATAGRAMS -> ud(r.nextInt(1 << 24));
                case CM_REQS -> cmReq(r);
            };
        }
    }

    private ByteBuffer packet(RxeOpcode op, int dqpn, int psn, int payload) {
        ByteBuf b = Unpooled.buffer(RxeWire.udpPayloadLength(op, payload));
        b.writerIndex(b.capacity());
        Bth.encode(b, 0, op.value(), false, false, RxeWire.padFor(payload), 0xffff, dqpn, true, psn);
        return b.nioBuffer();
    }

    private ByteBuffer read(int psn) {
        return seal(packet(RxeOpcode.RC_RDMA_READ_REQUEST, qpn, psn, 0), RxeOpcode.RC_RDMA_READ_REQUEST);
    }

    private ByteBuffer ud(int psn) {
        ByteBuffer p = packet(RxeOpcode.UD_SEND_ONLY, qpn, psn, 256);
        ByteBuf b = Unpooled.wrappedBuffer(p);
        Deth.encode(b, RxeOpcode.UD_SEND_ONLY.dethOffset(), 0x11111111, 0x42);
        return seal(p, null);
    }

    private ByteBuffer cmReq(ThreadLocalRandom r) {
        InetAddress src = from;
        org.jrdma.ib.cm.wire.CmReq req = new org.jrdma.ib.cm.wire.CmReq().localCommId(r.nextInt())
                .serviceId(org.jrdma.ib.cm.RdmaPortSpace.TCP.serviceId(CM_PORT)).localCaGuid(r.nextLong())
                .localQpn(r.nextInt(1 << 24)).responderResources(1).initiatorDepth(1).remoteCmResponseTimeout(20)
                .transportType(0).flowControl(true).startingPsn(r.nextInt(1 << 24)).localCmResponseTimeout(20)
                .retryCount(7).pkey(0xffff).pathMtu(3).rnrRetryCount(7).maxCmRetries(15)
                .primaryPath(new org.jrdma.ib.cm.wire.CmPath().localLid(0xffff).remoteLid(0xffff)
                        .localGid(org.jrdma.ib.core.Gid.of(src)).remoteGid(org.jrdma.ib.core.Gid.of(dst))
                        .hopLimit(64).localAckTimeout(19))
                .privateData(new org.jrdma.ib.cm.wire.CmaHeader(src, 1024 + r.nextInt(60000), dst)
                        .encode(new byte[0]));
        byte[] mad = req.encode(r.nextLong()).bytes();
        ByteBuffer p = packet(RxeOpcode.UD_SEND_ONLY, 1, r.nextInt(1 << 24), mad.length);
        ByteBuf b = Unpooled.wrappedBuffer(p);
        Deth.encode(b, RxeOpcode.UD_SEND_ONLY.dethOffset(), org.jrdma.ib.mad.MadService.QP1_QKEY, 1);
        b.setBytes(RxeOpcode.UD_SEND_ONLY.length(), mad);
        return seal(p, null);
    }

    /** The RETH of a READ (2 GiB from the target's region), then the ICRC over the spoofed addresses. */
    private ByteBuffer seal(ByteBuffer p, RxeOpcode read) {
        ByteBuf b = Unpooled.wrappedBuffer(p);
        b.writerIndex(p.remaining());
        if (read != null) {
            Reth.encode(b, read.rethOffset(), va, rkey, Integer.MAX_VALUE);
        }
        Icrc.store(b, 0, b.writerIndex(), icrc.ipv4(srcAddr, dstAddr, 0, Icrc.IPV4_DF, srcPort,
                RxeWire.ROCE_V2_UDP_DPORT, b, 0, b.writerIndex()));
        return p;
    }

    @Override
    public void close() throws IOException {
        stop = true;
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ch.close();
    }
}
