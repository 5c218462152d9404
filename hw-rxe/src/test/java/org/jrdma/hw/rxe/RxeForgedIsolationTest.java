package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.jrdma.hw.rxe.RxeWireBed.Conn;
import org.jrdma.hw.rxe.RxeWireBed.Side;
import org.jrdma.hw.rxe.wire.AtomicEth;
import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.Deth;
import org.jrdma.hw.rxe.wire.Reth;
import org.jrdma.hw.rxe.wire.RxeMask;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxeOpcode.Transport;
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
 * Isolation against forged packets as properties over thousands of random cases (issue 17), hw-rxe only (the
 * loopback driver has no wire to forge on). Opcode mixing: every opcode of another transport than the target QP's
 * (UC and UD to RC, RC and UD to UC, RC and UC to UD, responses included), with otherwise valid headers (the QP's
 * PSN, a valid rkey, the right Q_Key), is dropped in {@code rxe_rcv} ({@code check_type_state}) and counted in
 * rcvd_dropped, and nothing is delivered, written or sent. UD keys and lengths: datagrams with random P_Keys,
 * Q_Keys and lengths against receives of random sizes are dropped and counted in the port's bad_pkey_cntr /
 * qkey_viol_cntr ({@code check_keys}), complete LOC_LEN_ERR when they do not fit after the 40-byte GRH room (the
 * QP stays in RTS; Linux drops them and leaves the receive posted, see NOTES), or land byte-exact; never a byte past
 * the receive.
 */
class RxeForgedIsolationTest {
    static final int PEER_QPN = 0x11;
    static final int PSN = 0x100;
    static final int SRC_PORT = 50000;
    static final int QKEY = 0x11111111;
    static final int GRH = 40;
    static final byte UNTOUCHED = (byte) 0xee;

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

    static long seed() {
        return Long.getLong("jrdma.isolation.seed", System.nanoTime());
    }

    static Transport transport(QpType t) {
        return t == QpType.RC ? Transport.RC : t == QpType.UC ? Transport.UC : Transport.UD;
    }

    static ByteBuf wrap(byte[] b) {
        return Unpooled.wrappedBuffer(b);
    }

    void postRecv(Side s, long wrId, int len) {
        s.qp.postRecv(new RecvWr().wrId(wrId).sgList(new Sge(s.mr.iova(), len, s.mr.lkey())));
    }

    /** A packet of {@code op} to {@code s}'s QP with the headers a valid one would carry for it. */
    static byte[] tempting(RxeOpcode op, Side s, Random r) {
        int payload = op.is(RxeMask.PAYLOAD) ? r.nextInt(65) : 0;
        byte[] b = RxeWireBed.packet(op, s.qpn(), PSN, r.nextBoolean(), payload);
        ByteBuf bb = wrap(b);
        if (op.is(RxeMask.RETH)) {
            Reth.encode(bb, op.rethOffset(), s.mr.iova(), s.mr.rkey(), payload);
        }
        if (op.is(RxeMask.ATMETH)) {
            AtomicEth.encode(bb, op.atmethOffset(), s.mr.iova(), s.mr.rkey(), r.nextLong(), r.nextLong());
        }
        if (op.is(RxeMask.DETH)) {
            Deth.encode(bb, op.dethOffset(), QKEY, PEER_QPN);
        }
        for (int i = 0; i < payload; i++) {
            b[op.payloadOffset() + i] = (byte) r.nextInt();
        }
        return b;
    }

    @Test
    void opcodesOfAnotherTransportAreDroppedAndCountedAndDeliverNothing() throws Exception {
        long seed = seed();
        Random r = new Random(seed);
        Side rc = bed.side(QpType.RC, 4096);
        bed.connect(rc, new Conn(PEER_QPN, PSN, 0));
        Side uc = bed.side(QpType.UC, 4096);
        bed.connect(uc, new Conn(PEER_QPN, PSN, 0));
        Side ud = bed.side(QpType.UD, 4096);
        bed.connectUd(ud, QKEY);
        List<Side> sides = List.of(rc, uc, ud);
        for (Side s : sides) {
            for (int i = 0; i < s.buf.capacity(); i++) {
                s.buf.put(i, UNTOUCHED);
            }
            postRecv(s, 1, 4096);
        }
        RxeOpcode[] ops = RxeOpcode.values();
        int cases = 3000;
        long dropped0 = bed.counter(RxeCounter.RCVD_DROPPED);
        long rcvd0 = bed.counter(RxeCounter.RCVD_PKTS);
        for (int c = 0; c < cases; c++) {
            Side s = sides.get(r.nextInt(3));
            RxeOpcode op;
            do {
                op = ops[r.nextInt(ops.length)];
            } while (op.transport() == transport(s.qp.qpType()));
            bed.inject(tempting(op, s, r), SRC_PORT);
            long d = bed.counter(RxeCounter.RCVD_DROPPED) - dropped0;
            if (d != c + 1 || bed.counter(RxeCounter.RCVD_PKTS) != rcvd0) {
                fail("case " + c + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): " + op + " to "
                        + s.qp.qpType() + " QP " + s.qpn() + " not dropped in rcv: rcvd_dropped +" + d
                        + ", counters " + bed.rxe.counters());
            }
        }
        bed.quiet(20);
        for (Side s : sides) {
            assertNull(s.poll(0), "nothing completed on the " + s.qp.qpType() + " QP");
            for (int i = 0; i < s.buf.capacity(); i++) {
                if (s.buf.get(i) != UNTOUCHED) {
                    fail("byte " + i + " of the " + s.qp.qpType() + " QP's memory changed (seed " + seed + ")");
                }
            }
            assertEquals(QpState.RTS, s.qp.query().state(), s.qp.qpType() + " QP state");
        }
        // and each still takes a valid message of its own transport
        bed.inject(tempting(RxeOpcode.RC_SEND_ONLY, rc, r), SRC_PORT);
        bed.inject(tempting(RxeOpcode.UC_SEND_ONLY, uc, r), SRC_PORT);
        bed.inject(tempting(RxeOpcode.UD_SEND_ONLY, ud, r), SRC_PORT);
        for (Side s : sides) {
            WorkCompletion w = s.next(5000);
            assertEquals(WcStatus.SUCCESS, w.status(), s.qp.qpType() + " " + w);
            assertEquals(1, w.wrId());
        }
    }

    @Test
    void udDatagramsWithRandomKeysAndLengths() throws Exception {
        long seed = seed();
        Random r = new Random(seed);
        Side ud = bed.side(QpType.UD, 4096);
        bed.connectUd(ud, QKEY);
        int mtu = bed.dev.queryPort(1).activeMtu().bytes();
        int cases = 3000;
        int posted = -1; // the length of the receive posted, -1 if none
        long wrId = 0;
        int[] outcomes = new int[4];
        for (int c = 0; c < cases; c++) {
            if (posted < 0) {
                posted = r.nextInt(GRH + mtu + 16);
                for (int i = 0; i < ud.buf.capacity(); i++) {
                    ud.buf.put(i, UNTOUCHED);
                }
                postRecv(ud, ++wrId, posted);
            }
            int k = r.nextInt(8);
            int pkey = k == 0 ? r.nextInt(0x10000) : k == 1 ? 0x7fff : 0xffff;
            int qkey = k == 2 ? r.nextInt() : k == 3 ? QKEY ^ (1 << r.nextInt(32)) : QKEY;
            int len = r.nextInt(mtu + 1);
            byte[] b = RxeWireBed.packet(RxeOpcode.UD_SEND_ONLY, ud.qpn(), r.nextInt(1 << 24), false, len);
            Bth.setPkey(wrap(b), 0, pkey);
            Deth.encode(wrap(b), RxeOpcode.UD_SEND_ONLY.dethOffset(), qkey, PEER_QPN);
            byte[] payload = new byte[len];
            r.nextBytes(payload);
            System.arraycopy(payload, 0, b, RxeOpcode.UD_SEND_ONLY.payloadOffset(), len);
            String what = "case " + c + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): P_Key 0x"
                    + Integer.toHexString(pkey) + " Q_Key 0x" + Integer.toHexString(qkey) + " " + len + " bytes into "
                    + posted;
            int outcome = udCase(ud, b, pkey, qkey, len, posted, payload, wrId, what);
            outcomes[outcome]++;
            posted = outcome >= 2 ? -1 : posted;
        }
        for (int o = 0; o < 4; o++) {
            if (outcomes[o] < cases / 50) {
                fail("outcomes (bad P_Key, bad Q_Key, LOC_LEN_ERR, delivered) " + java.util.Arrays.toString(outcomes)
                        + " (seed " + seed + ")");
            }
        }
        assertNull(ud.poll(20), "nothing more completed");
    }

    /** One datagram: 0 dropped for its P_Key, 1 for its Q_Key, 2 LOC_LEN_ERR, 3 delivered. */
    private int udCase(Side ud, byte[] b, int pkey, int qkey, int len, int posted, byte[] payload, long wrId,
            String what) throws Exception {
        long badPkey = bed.dev.queryPort(1).badPkeyCntr();
        long badQkey = bed.dev.queryPort(1).qkeyViolCntr();
        long dropped = bed.counter(RxeCounter.RCVD_DROPPED);
        bed.inject(b, SRC_PORT);
        boolean pkeyOk = (pkey & 0x7fff) == 0x7fff;
        boolean qkeyOk = qkey == QKEY;
        assertEquals(badPkey + (pkeyOk ? 0 : 1), bed.dev.queryPort(1).badPkeyCntr(), what + ": bad_pkey_cntr");
        assertEquals(badQkey + (pkeyOk && !qkeyOk ? 1 : 0), bed.dev.queryPort(1).qkeyViolCntr(),
                what + ": qkey_viol_cntr");
        assertEquals(dropped + (pkeyOk && qkeyOk ? 0 : 1), bed.counter(RxeCounter.RCVD_DROPPED),
                what + ": rcvd_dropped");
        if (!pkeyOk || !qkeyOk) {
            return pkeyOk ? 1 : 0;
        }
        WorkCompletion w = ud.next(5000);
        assertEquals(wrId, w.wrId(), what);
        boolean fits = GRH + len <= posted;
        assertEquals(fits ? WcStatus.SUCCESS : WcStatus.LOC_LEN_ERR, w.status(), what);
        for (int i = GRH; i < ud.buf.capacity(); i++) {
            byte want = fits && i < GRH + len ? payload[i - GRH] : UNTOUCHED;
            if (ud.buf.get(i) != want) {
                fail(what + ": byte " + i + " is 0x" + Integer.toHexString(ud.buf.get(i) & 0xff));
            }
        }
        if (fits) {
            assertEquals(GRH + len, w.byteLen(), what + ": byte_len");
        }
        assertEquals(QpState.RTS, ud.qp.query().state(), what);
        return fits ? 3 : 2;
    }
}
