package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.jrdma.hw.rxe.RxeWireBed.Conn;
import org.jrdma.hw.rxe.RxeWireBed.Side;
import org.jrdma.hw.rxe.wire.AtomicEth;
import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.Deth;
import org.jrdma.hw.rxe.wire.Reth;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Malformed, truncated and hostile packets into {@link RxeDevice#rcv}: each is dropped (and counted) or
 * NAKed as Linux 6.1 rxe does (rxe_recv.c: hdr_check / check_type_state / check_keys / ICRC, silent drops;
 * rxe_resp.c: class B/C/D errors), never throws, never leaks a buffer (PARANOID leak detection, checked
 * after all), and a good packet afterwards still works where the QP survives. Where jrdma deliberately
 * differs from 6.1 the test says so.
 */
class RxeHostilePacketTest {
    static final int PEER_QPN = 0x11;
    static final int PSN = 0x100;
    static final int SRC_PORT = 50000;
    static final int MTU = 1024;

    RxeWireBed bed;

    @BeforeEach
    void open() throws Exception {
        bed = new RxeWireBed("192.0.2.11", "192.0.2.10");
    }

    @AfterEach
    void close() throws Exception {
        bed.close();
    }

    @AfterAll
    static void noLeaks() throws Exception {
        assertEquals(0, LeakCheck.collect(), "leaked buffers (Netty's detector, or packet slots not returned)");
    }

    // ---------------------------------------------------------------- helpers

    /** A fresh RC QP in RTS, expecting PSN {@link #PSN}, with a 64 KiB MR. */
    Side rc() {
        Side s = bed.side(QpType.RC, 65536);
        bed.connect(s, new Conn(PEER_QPN, PSN, 0));
        return s;
    }

    static ByteBuf wrap(byte[] b) {
        return Unpooled.wrappedBuffer(b);
    }

    /** RDMA WRITE ONLY (or another RETH opcode) with AckReq. */
    static byte[] rethPkt(RxeOpcode op, int qpn, int psn, long va, int rkey, int dmaLen, int payload) {
        byte[] b = RxeWireBed.packet(op, qpn, psn, true, payload);
        Reth.encode(wrap(b), op.rethOffset(), va, rkey, dmaLen);
        for (int i = 0; i < payload; i++) {
            b[op.length() + i] = (byte) (i * 7 + 1);
        }
        return b;
    }

    byte[] writeOnly(Side s, int psn, int len) {
        return rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, s.qpn(), psn, s.mr.iova(), s.mr.rkey(), len, len);
    }

    void inject(byte[] b) {
        bed.inject(b, SRC_PORT);
    }

    RxePacket nextPkt() throws InterruptedException {
        return bed.next(5000).pkt();
    }

    /** The device answers with an ACK-type packet of {@code syndrome} at {@code psn}. */
    void expectAck(int syndrome, int psn, int msn) throws InterruptedException {
        RxePacket p = nextPkt();
        assertEquals(RxeOpcode.RC_ACKNOWLEDGE, p.opcode(), p.toString());
        assertEquals(syndrome, p.aethSyn(), "syndrome");
        assertEquals(psn, p.psn(), "PSN");
        assertEquals(msn, p.aethMsn(), "MSN");
        assertEquals(PEER_QPN, p.qpn());
    }

    /** A good WRITE at {@code psn} is ACKed: the QP survived whatever came before (and processed it). */
    void probe(Side s, int psn, int msn) throws InterruptedException {
        inject(writeOnly(s, psn, 8));
        expectAck(0x1f, psn, msn);
        assertEquals(QpState.RTS, s.qp.query().state());
    }

    /** Feeds {@code b}, which rxe_rcv must drop: counted, nothing queued, nothing sent. */
    void dropped(byte[] b, boolean fixIcrc) throws InterruptedException {
        long d = bed.counter(RxeCounter.RCVD_DROPPED);
        long r = bed.counter(RxeCounter.RCVD_PKTS);
        if (fixIcrc) {
            bed.inject(b, SRC_PORT);
        } else {
            bed.injectRaw(b, SRC_PORT);
        }
        assertEquals(d + 1, bed.counter(RxeCounter.RCVD_DROPPED), "dropped in rcv");
        assertEquals(r, bed.counter(RxeCounter.RCVD_PKTS), "not received");
    }

    /** A class C error: the NAK, then the responder QP in ERR. */
    void classC(Side s, byte[] b, int syndrome) throws InterruptedException {
        inject(b);
        expectAck(syndrome, Bth.psn(wrap(b), 0), 0);
        RxeWireBed.await("QP in ERR", () -> s.qp.query().state() == QpState.ERR);
        bed.quiet(20);
    }

    void postRecv(Side s, long wrId, int off, int len) {
        s.qp.postRecv(new RecvWr().wrId(wrId).sgList(new Sge(s.mr.iova() + off, len, s.mr.lkey())));
    }

    // ---------------------------------------------------------------- rxe_recv.c: check_addr

    /**
     * Found by a tester: 100,000 valid-ICRC ACKs from 127.0.0.9 reached an RC QP (rcvd_dropped 0), forged SENDs
     * raised duplicate_request. rxe's check_addr drops packets for a connected QP that do not come from the AV's
     * DGID; here counted in rcvd_dropped, and the connection goes on.
     */
    @Test
    void aConnectedQpTakesPacketsOnlyFromItsPeer() throws Exception {
        Side s = rc();
        java.net.InetAddress stranger = java.net.InetAddress.getByName("192.0.2.99");
        long d = bed.counter(RxeCounter.RCVD_DROPPED);
        long r = bed.counter(RxeCounter.RCVD_PKTS);
        byte[] ack = RxeWireBed.packet(RxeOpcode.RC_ACKNOWLEDGE, s.qpn(), PSN, false, 0);
        for (int i = 0; i < 100; i++) {
            bed.injectFrom(stranger, ack, SRC_PORT);
            bed.injectFrom(stranger, writeOnly(s, PSN, 8), SRC_PORT);
        }
        assertEquals(d + 200, bed.counter(RxeCounter.RCVD_DROPPED), "every forged packet dropped and counted");
        assertEquals(r, bed.counter(RxeCounter.RCVD_PKTS));
        assertEquals(0, bed.counter(RxeCounter.DUPLICATE_REQUEST));
        bed.quiet(50);
        probe(s, PSN, 1); // the peer's own WRITE at the PSN the forged ones used: executed and ACKed
    }

    // ---------------------------------------------------------------- rxe_recv.c: dropped before any QP

    /** Every prefix of a good WRITE ONLY (BTH, RETH, 64 bytes, ICRC): all dropped; the whole one works. */
    @Test
    void truncatedAtEveryLength() throws Exception {
        Side s = rc();
        byte[] good = writeOnly(s, PSN, 64);
        ByteBuf gb = wrap(good);
        org.jrdma.hw.rxe.wire.Icrc.store(gb, 0, good.length,
                RxeXmit.icrc(new org.jrdma.hw.rxe.wire.Icrc(), gb, 0, good.length, bed.peer, bed.local, SRC_PORT));
        for (int len = 0; len < good.length; len++) {
            dropped(java.util.Arrays.copyOf(good, len), false);
        }
        bed.quiet(20);
        assertEquals(QpState.RTS, s.qp.query().state());
        bed.injectRaw(good, SRC_PORT);
        expectAck(0x1f, PSN, 1);
        assertEquals((byte) 1, s.buf.get(0));
    }

    /** A flipped payload bit: the ICRC catches it (rxe: "bad ICRC", dropped). */
    @Test
    void badIcrc() throws Exception {
        Side s = rc();
        byte[] b = writeOnly(s, PSN, 64);
        ByteBuf bb = wrap(b);
        org.jrdma.hw.rxe.wire.Icrc.store(bb, 0, b.length,
                RxeXmit.icrc(new org.jrdma.hw.rxe.wire.Icrc(), bb, 0, b.length, bed.peer, bed.local, SRC_PORT));
        b[40] ^= 0x10;
        long icrc = bed.counter(RxeCounter.RCVD_ICRC_ERR);
        dropped(b, false);
        assertEquals(icrc + 1, bed.counter(RxeCounter.RCVD_ICRC_ERR));
        assertEquals(0, s.buf.get(24), "nothing written");
        probe(s, PSN, 1);
    }

    /** No such QP, a destroyed one, QP0 (rxe: "QP 0 not supported"; a UD SEND to it too), the multicast QPN without a group. */
    @Test
    void wrongQpn() throws Exception {
        Side s = rc();
        Side gone = bed.side(QpType.RC, 4096);
        bed.connect(gone, new Conn(PEER_QPN, PSN, 0));
        int goneQpn = gone.qpn();
        gone.qp.destroy();
        for (int qpn : new int[] {0x00abcd, goneQpn, 0, 0xffffff}) {
            dropped(rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, qpn, PSN, s.mr.iova(), s.mr.rkey(), 8, 8), true);
        }
        // a datagram to QP0 (an SMP from anyone): RoCE has no QP0, rxe_rcv drops it before any QP
        byte[] smp = RxeWireBed.packet(RxeOpcode.UD_SEND_ONLY, 0, PSN, false, 256);
        Deth.encode(wrap(smp), RxeOpcode.UD_SEND_ONLY.dethOffset(), 0, PEER_QPN);
        dropped(smp, true);
        bed.quiet(20);
        probe(s, PSN, 1);
        gone.mr.dereg();
        gone.cq.destroy();
    }

    /** check_type_state: the opcode's transport must be the QP's (UC to RC, UD to RC, RC to UD). */
    @Test
    void transportMismatch() throws Exception {
        Side s = rc();
        Side ud = bed.side(QpType.UD, 8192);
        bed.connectUd(ud, 0x11111111);
        dropped(rethPkt(RxeOpcode.UC_RDMA_WRITE_ONLY, s.qpn(), PSN, s.mr.iova(), s.mr.rkey(), 8, 8), true);
        byte[] udOnRc = RxeWireBed.packet(RxeOpcode.UD_SEND_ONLY, s.qpn(), PSN, false, 8);
        Deth.encode(wrap(udOnRc), RxeOpcode.UD_SEND_ONLY.dethOffset(), 0x11111111, PEER_QPN);
        dropped(udOnRc, true);
        postRecv(ud, 1, 0, 4096);
        dropped(RxeWireBed.packet(RxeOpcode.RC_SEND_ONLY, ud.qpn(), 0, true, 8), true);
        // an ACK is a response: for an RC QP only
        dropped(RxeWireBed.packet(RxeOpcode.RC_ACKNOWLEDGE, ud.qpn(), 0, false, 0), true);
        bed.quiet(20);
        assertNull(ud.poll(20), "the UD receive is untouched");
        probe(s, PSN, 1);
    }

    /** Requests need the responder ready (RTR and later), responses the requester (RTS): else dropped. */
    @Test
    void qpNotReady() throws Exception {
        Side s = bed.side(QpType.RC, 4096);
        byte[] w = rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, s.qpn(), PSN, s.mr.iova(), s.mr.rkey(), 8, 8);
        dropped(w, true); // RESET
        s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(RxeWireBed.ALL_ACCESS));
        dropped(w, true); // INIT
        bed.toRtr(s, new Conn(PEER_QPN, PSN, 0));
        byte[] ack = RxeWireBed.packet(RxeOpcode.RC_ACKNOWLEDGE, s.qpn(), 0, false, 0);
        dropped(ack, true); // RTR: no requester yet
        inject(w); // RTR takes requests
        expectAck(0x1f, PSN, 1);
        s.qp.modify(new QpAttr().state(QpState.ERR));
        dropped(rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, s.qpn(), PSN + 1, s.mr.iova(), s.mr.rkey(), 8, 8), true);
        bed.quiet(20);
    }

    /** check_keys: a P_Key that does not match the default one (0xffff; 0x7fff would) is dropped. */
    @Test
    void badPkey() throws Exception {
        Side s = rc();
        byte[] b = writeOnly(s, PSN, 8);
        Bth.setPkey(wrap(b), 0, 0x1234);
        dropped(b, true);
        assertEquals(1, bed.dev.queryPort(1).badPkeyCntr(), "rxe counts it in the port's bad_pkey_cntr");
        Bth.setPkey(wrap(b), 0, 0x7fff); // a limited member key still matches the full default key
        inject(b);
        expectAck(0x1f, PSN, 1);
    }

    /** check_keys: the DETH Q_Key must be the UD QP's (QP1: GSI_QKEY 0x80010000); else dropped. */
    @Test
    void badQkeyUd() throws Exception {
        Side ud = bed.side(QpType.UD, 8192);
        bed.connectUd(ud, 0x11111111);
        postRecv(ud, 7, 0, 4096);
        byte[] b = RxeWireBed.packet(RxeOpcode.UD_SEND_ONLY, ud.qpn(), 0, false, 64);
        Deth.encode(wrap(b), RxeOpcode.UD_SEND_ONLY.dethOffset(), 0x22222222, PEER_QPN);
        dropped(b, true);
        assertEquals(1, bed.dev.queryPort(1).qkeyViolCntr(), "rxe counts it in the port's qkey_viol_cntr");
        assertNull(ud.poll(20));
        Deth.encode(wrap(b), RxeOpcode.UD_SEND_ONLY.dethOffset(), 0x11111111, PEER_QPN);
        inject(b);
        WorkCompletion w = ud.next(5000);
        assertEquals(WcStatus.SUCCESS, w.status());
        assertEquals(7, w.wrId());
        assertEquals(64 + 40, w.byteLen(), "payload plus the GRH room");
        bed.quiet(20); // UD: no answer
    }

    /** A UD datagram with no receive posted is dropped, silently on the wire, but counted (a flood of them too). */
    @Test
    void udWithoutAReceiveIsDroppedAndCounted() throws Exception {
        Side ud = bed.side(QpType.UD, 8192);
        bed.connectUd(ud, 0x11111111);
        byte[] b = RxeWireBed.packet(RxeOpcode.UD_SEND_ONLY, ud.qpn(), 0, false, 64);
        Deth.encode(wrap(b), RxeOpcode.UD_SEND_ONLY.dethOffset(), 0x11111111, PEER_QPN);
        for (int i = 0; i < 100; i++) {
            inject(b);
        }
        long end = System.nanoTime() + 5_000_000_000L;
        while (bed.counter(RxeCounter.RCVD_NO_RWQE) < 100 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(100, bed.counter(RxeCounter.RCVD_NO_RWQE));
        postRecv(ud, 8, 0, 4096);
        inject(b);
        assertEquals(8, ud.next(5000).wrId(), "the QP still takes the next one");
        bed.quiet(20);
    }

    /**
     * Opcodes rxe 6.1 has no row for (0x15, RDMA FLUSH 0x1c and ATOMIC WRITE 0x1d of 6.2+, 0x18-0x1f, RD,
     * CNP 0x81, the rest). jrdma drops them in rcv. Linux 6.1 differs: an unknown opcode's mask is 0, so
     * it is not a request and, if its transport bits match the QP, goes to the completer as a response;
     * jrdma's drop is the safe reading of "not a request, not a response".
     */
    @Test
    void unsupportedOpcodes() throws Exception {
        Side s = rc();
        int n = 0;
        for (int op = 0; op < 256; op++) {
            if (RxeOpcode.of(op) != null) {
                continue;
            }
            byte[] b = new byte[12 + 16 + 8 + 4];
            Bth.encode(wrap(b), 0, op, false, false, 0, 0xffff, s.qpn(), true, PSN);
            dropped(b, true);
            n++;
        }
        assertEquals(256 - RxeOpcode.values().length, n);
        bed.quiet(20);
        probe(s, PSN, 1);
    }

    // ---------------------------------------------------------------- rxe_resp.c

    /** RC SEND MIDDLE with no message in progress: NAK invalid request (class C); the receive is flushed. */
    @Test
    void middleWithoutFirst() throws Exception {
        Side s = rc();
        postRecv(s, 1, 0, 8192);
        classC(s, RxeWireBed.packet(RxeOpcode.RC_SEND_MIDDLE, s.qpn(), PSN, false, MTU), 0x61);
        WorkCompletion w = s.next(5000);
        assertEquals(1, w.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, w.status());
    }

    /**
     * A SEND FIRST while a SEND is in progress: NAK invalid request at the second FIRST; the receive WQE
     * the first one took completes in error (rxe: do_complete with REM_INV_REQ_ERR), the next is flushed.
     */
    @Test
    void firstWhileMessageInProgress() throws Exception {
        Side s = rc();
        postRecv(s, 1, 0, 8192);
        postRecv(s, 2, 8192, 8192);
        inject(RxeWireBed.packet(RxeOpcode.RC_SEND_FIRST, s.qpn(), PSN, false, MTU));
        classC(s, RxeWireBed.packet(RxeOpcode.RC_SEND_FIRST, s.qpn(), PSN + 1, false, MTU), 0x61);
        WorkCompletion w1 = s.next(5000);
        assertEquals(1, w1.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, w1.status());
        WorkCompletion w2 = s.next(5000);
        assertEquals(2, w2.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, w2.status());
    }

    /** The same with a WRITE FIRST cutting into the SEND: the taken receive WQE must not vanish. */
    @Test
    void writeFirstWhileSendInProgress() throws Exception {
        Side s = rc();
        postRecv(s, 1, 0, 8192);
        inject(RxeWireBed.packet(RxeOpcode.RC_SEND_FIRST, s.qpn(), PSN, false, MTU));
        classC(s, rethPkt(RxeOpcode.RC_RDMA_WRITE_FIRST, s.qpn(), PSN + 1, s.mr.iova(), s.mr.rkey(), 4096, MTU),
                0x61);
        WorkCompletion w1 = s.next(5000);
        assertEquals(1, w1.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, w1.status());
    }

    /** UC: a MIDDLE without FIRST is dropped silently (rxe: drop_msg); the QP lives on. */
    @Test
    void ucMiddleWithoutFirstIsDropped() throws Exception {
        Side s = bed.side(QpType.UC, 65536);
        bed.connect(s, new Conn(PEER_QPN, PSN, 0));
        postRecv(s, 1, 0, 8192);
        inject(RxeWireBed.packet(RxeOpcode.UC_SEND_MIDDLE, s.qpn(), PSN, false, MTU));
        inject(RxeWireBed.packet(RxeOpcode.UC_SEND_LAST, s.qpn(), PSN + 1, false, 100));
        inject(RxeWireBed.packet(RxeOpcode.UC_SEND_ONLY, s.qpn(), PSN + 2, false, 64));
        WorkCompletion w = s.next(5000);
        assertEquals(WcStatus.SUCCESS, w.status());
        assertEquals(64, w.byteLen(), "the next whole message lands, the torn one does not");
        assertEquals(QpState.RTS, s.qp.query().state());
        bed.quiet(20);
    }

    /** The RETH reaches past the MR: NAK remote access error (mr_check_range). */
    @Test
    void rethPastMrEnd() throws Exception {
        Side s = rc();
        classC(s, rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, s.qpn(), PSN, s.mr.iova() + 65536 - 4, s.mr.rkey(), 8, 8),
                0x62);
        Side r = rc();
        classC(r, rethPkt(RxeOpcode.RC_RDMA_READ_REQUEST, r.qpn(), PSN, r.mr.iova() + 65000, r.mr.rkey(), 1024, 0),
                0x62);
    }

    /**
     * DMA length above 2^31. Linux 6.1: its check_length compared the opcode byte against mask bits and
     * never fired (fixed in 6.2 by "RDMA/rxe: Fix incorrect responder length checking", which NAKs 0x61 per
     * IBA C9-94); the range check then gives NAK remote access error, as here.
     */
    @Test
    void rethLengthAbove2g() throws Exception {
        Side s = rc();
        classC(s, rethPkt(RxeOpcode.RC_RDMA_WRITE_FIRST, s.qpn(), PSN, s.mr.iova(), s.mr.rkey(), 0x80000400, MTU),
                0x62);
    }

    /** WRITE ONLY whose payload is not the DMA length, or whose pad does not fit it: NAK invalid request. */
    @Test
    void writeLengthMismatch() throws Exception {
        Side a = rc();
        classC(a, rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, a.qpn(), PSN, a.mr.iova(), a.mr.rkey(), 64, 60), 0x61);
        Side b = rc();
        classC(b, rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, b.qpn(), PSN, b.mr.iova(), b.mr.rkey(), 64, 68), 0x61);
        // 62 bytes with pad 0 instead of 2: the payload length fits, the pad does not (rxe check_rkey)
        Side c = rc();
        byte[] p = rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, c.qpn(), PSN, c.mr.iova(), c.mr.rkey(), 62, 64);
        Reth.setLen(wrap(p), RxeOpcode.RC_RDMA_WRITE_ONLY.rethOffset(), 62);
        Bth.setPad(wrap(p), 0, 0);
        byte[] q = java.util.Arrays.copyOf(p, p.length - 2); // 62 payload bytes, no pad, ICRC
        classC(c, q, 0x61);
        // a message that ends short of its DMA length
        Side d = rc();
        byte[] first = rethPkt(RxeOpcode.RC_RDMA_WRITE_FIRST, d.qpn(), PSN, d.mr.iova(), d.mr.rkey(), 3 * MTU, MTU);
        Bth.setAckReq(wrap(first), 0, false);
        inject(first);
        classC(d, RxeWireBed.packet(RxeOpcode.RC_RDMA_WRITE_LAST, d.qpn(), PSN + 1, true, 100), 0x61);
    }

    /**
     * A FIRST or MIDDLE packet shorter than the MTU, and a packet longer than the MTU: NAK invalid request
     * (IBA C9-92; jrdma checks it for SENDs as Linux 6.2+ does; 6.1's check_length did not fire, so 6.1
     * took such SENDs; for WRITEs 6.1's check_rkey gives the same NAK).
     */
    @Test
    void payloadNotMtu() throws Exception {
        Side a = rc();
        postRecv(a, 1, 0, 8192);
        inject(RxeWireBed.packet(RxeOpcode.RC_SEND_FIRST, a.qpn(), PSN, false, MTU));
        classC(a, RxeWireBed.packet(RxeOpcode.RC_SEND_MIDDLE, a.qpn(), PSN + 1, false, MTU - 4), 0x61);
        Side b = rc();
        postRecv(b, 1, 0, 8192);
        classC(b, RxeWireBed.packet(RxeOpcode.RC_SEND_ONLY, b.qpn(), PSN, true, MTU + 4), 0x61);
        Side c = rc();
        classC(c, rethPkt(RxeOpcode.RC_RDMA_WRITE_FIRST, c.qpn(), PSN, c.mr.iova(), c.mr.rkey(), 4096, MTU - 8), 0x61);
    }

    /** A wrong rkey, the rkey of an MR of another PD, an MR without REMOTE_WRITE: NAK remote access error. */
    @Test
    void rkeyViolations() throws Exception {
        Side a = rc();
        classC(a, rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, a.qpn(), PSN, a.mr.iova(), a.mr.rkey() ^ 0x00ff0000, 8, 8),
                0x62);
        Side b = rc();
        Side other = rc(); // its own PD
        classC(b, rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, b.qpn(), PSN, other.mr.iova(), other.mr.rkey(), 8, 8), 0x62);
        Side c = rc();
        Side ro = bed.new Side(c.pd, QpType.RC, 4096, Access.LOCAL_WRITE | Access.REMOTE_READ);
        classC(c, rethPkt(RxeOpcode.RC_RDMA_WRITE_ONLY, c.qpn(), PSN, ro.mr.iova(), ro.mr.rkey(), 8, 8), 0x62);
        assertEquals(0, ro.buf.get(0));
        assertEquals(0, other.buf.get(0));
    }

    /** An atomic at an address not 8-byte aligned: NAK invalid request (rxe: ERR_MISALIGNED_ATOMIC). */
    @Test
    void atomicUnaligned() throws Exception {
        Side s = rc();
        byte[] b = RxeWireBed.packet(RxeOpcode.RC_FETCH_ADD, s.qpn(), PSN, true, 0);
        AtomicEth.encode(wrap(b), RxeOpcode.RC_FETCH_ADD.atmethOffset(), s.mr.iova() + 4, s.mr.rkey(), 1, 0);
        classC(s, b, 0x61);
        assertEquals(0, s.buf.getLong(0));
    }

    /** A gap: one NAK PSN sequence error at the expected PSN, the rest of the burst dropped quietly. */
    @Test
    void outOfSequence() throws Exception {
        Side s = rc();
        for (int i = 1; i <= 3; i++) {
            inject(writeOnly(s, PSN + i, 8));
        }
        expectAck(0x60, PSN, 0);
        bed.quiet(20);
        assertEquals(1, bed.counter(RxeCounter.OUT_OF_SEQ_REQUEST));
        probe(s, PSN, 1);
        // and a duplicate is ACKed at the last PSN taken
        inject(writeOnly(s, PSN - 5, 8));
        expectAck(0x1f, PSN, 1);
        assertEquals(1, bed.counter(RxeCounter.DUPLICATE_REQUEST));
    }

    /**
     * A resent 4-packet WRITE that was received in full: its FIRST and MIDDLEs (no AckReq) are ACKed at their
     * own PSNs, its LAST (AckReq) at the newest PSN. Never a second ACK for the message's last PSN before the
     * resend's LAST: rxe's completer would complete the WQE its requester is still resending (NOTES.md).
     */
    @Test
    void resentMessageIsAckedAtEachDuplicatesPsnUntilItsLast() throws Exception {
        Side s = rc();
        RxeOpcode[] ops = {RxeOpcode.RC_RDMA_WRITE_FIRST, RxeOpcode.RC_RDMA_WRITE_MIDDLE,
            RxeOpcode.RC_RDMA_WRITE_MIDDLE, RxeOpcode.RC_RDMA_WRITE_LAST};
        byte[][] msg = new byte[4][];
        for (int i = 0; i < 4; i++) {
            boolean last = i == 3;
            msg[i] = RxeWireBed.packet(ops[i], s.qpn(), PSN + i, last, MTU);
            if (i == 0) {
                Reth.encode(wrap(msg[0]), ops[0].rethOffset(), s.mr.iova(), s.mr.rkey(), 4 * MTU);
            }
            inject(msg[i]);
        }
        expectAck(0x1f, PSN + 3, 1); // the first transmission: one ACK, for the LAST
        inject(writeOnly(s, PSN + 4, 8)); // and a newer message after it
        expectAck(0x1f, PSN + 4, 2);
        for (int i = 0; i < 4; i++) { // the requester's timer fired: the 4-packet message again
            inject(msg[i]);
            expectAck(0x1f, i == 3 ? PSN + 4 : PSN + i, 2);
        }
        assertEquals(4, bed.counter(RxeCounter.DUPLICATE_REQUEST));
        bed.quiet(20);
    }
}
