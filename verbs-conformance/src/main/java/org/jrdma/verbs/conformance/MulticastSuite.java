package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SignalType;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * UD multicast ({@code ib_attach_mcast}/{@code ib_detach_mcast}): two UD QPs on side B attach to a group, a third
 * QP on side A sends to it (DLID = the MLID, DGID = the MGID, QPN 0xffffff). Every attached QP gets exactly one copy,
 * byte-exact, with the MGID as the GRH's DGID; the sender's own QP gets a copy only if attached; detach and QP
 * destroy stop delivery; the argument checks of {@code ib_attach_mcast} and the drivers' errors (rxe and rdmavt
 * agree: attaching twice is no error, detaching a QP that is not attached is EINVAL).
 * <p>The MGID is of the sending port's kind, as rdma_cm makes them: {@code ::ffff:239.x.y.z} on a RoCE port with
 * an IPv4 GID, else an IPv6-form multicast GID; the MLID (ignored on RoCE) from the multicast range.
 */
public abstract class MulticastSuite extends VerbsSuite {
    static final int GRH = 40;
    static final int QKEY = QpPair.DEFAULT_QKEY;
    static final int LEN = 200;
    static final int SLOT = GRH + LEN + 16;

    /** Multicast GID number {@code n} for the bed's ports. */
    Gid mgid(int n) {
        byte[] g = new byte[16];
        if (bed.a().queryGid(bed.portA(), 0).isV4Mapped()) {
            g[10] = (byte) 0xff;
            g[11] = (byte) 0xff;
            g[12] = (byte) 239;
            g[13] = 1;
            g[15] = (byte) n;
        } else {
            g[0] = (byte) 0xff;
            g[1] = 0x12; // transient, link-local scope
            g[2] = 0x4a;
            g[3] = 0x52; // "JR"
            g[15] = (byte) n;
        }
        return Gid.of(g);
    }

    static int mlid(int n) {
        return 0xc000 + n;
    }

    /** A UD QP in RTS on {@code dev}'s {@code port}, with its own PD and CQs. */
    Side ud(String name, IbDevice dev, int port) {
        ProtectionDomain pd = res.pd(dev);
        EventLog cqEvents = new EventLog();
        CompletionQueue scq = res.cq(dev, 64, cqEvents);
        CompletionQueue rcq = res.cq(dev, 64, cqEvents);
        EventLog events = new EventLog();
        QueuePair qp = res.qp(pd, new QpInitAttr().qpType(QpType.UD).sendCq(scq).recvCq(rcq)
                .cap(new QpCap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1))
                .sqSigType(SignalType.REQ_WR).eventHandler(events));
        qp.modify(QpPair.initAttr(QpType.UD, port, 0, QKEY));
        qp.modify(QpPair.rtrAttr(QpType.UD, null, null, 0, 0, 0, 0));
        qp.modify(QpPair.rtsAttr(QpType.UD, 0, 0, 0, 0, 0));
        return new Side(name, res, dev, port, pd, scq, rcq, qp, events, cqEvents);
    }

    Side receiver(String name) {
        return ud(name, bed.b(), bed.portB());
    }

    Side sender() {
        return ud("S", bed.a(), bed.portA());
    }

    /** A receiver attached to group {@code n}. */
    Side member(String name, int n) {
        Side r = receiver(name);
        r.qp.attachMcast(mgid(n), mlid(n));
        return r;
    }

    /** The AH from {@code s} to group {@code n}: the bed's AV to side B with the MLID and the MGID as DGID. */
    AddressHandle ahToGroup(Side s, int n) {
        AhAttr av = bed.avTo(bed.b(), bed.portB()).copy().portNum(s.port).dlid(mlid(n));
        if (av.grh() != null) {
            av.grh().dgid(mgid(n));
        } else {
            av.grh(mgid(n), 0);
        }
        return res.ah(s.pd, av);
    }

    /** Posts {@code count} receive slots on {@code s}; returns the buffer. */
    static Buf recvSlots(Side s, int count) {
        Buf b = s.buf(count * SLOT, Access.LOCAL_WRITE).fillByte(0xee);
        for (int i = 0; i < count; i++) {
            s.postRecv(100 + i, b.sge(i * SLOT, SLOT));
        }
        return b;
    }

    /** Sends one message of pattern {@code seed} from {@code s} to group {@code n}; waits for its completion. */
    static Buf sendToGroup(Side s, AddressHandle ah, long seed) {
        Buf src = s.buf(LEN, Access.LOCAL_WRITE).fill(seed);
        s.postSend(send(7, src.sge()).ud(ah, QueuePair.MULTICAST_QPN, QKEY));
        expectOk(s.scq, WcOpcode.SEND, 7);
        return src;
    }

    /** The DGID of the GRH at {@code off}: RoCEv2 over IPv4 puts 20 zero bytes and then the IPv4 header there. */
    static Gid dgid(Buf b, int off) {
        byte[] h = b.get(off, GRH);
        boolean ipv4 = h[20] == 0x45 && Arrays.equals(Arrays.copyOf(h, 20), new byte[20]);
        if (ipv4) {
            byte[] g = new byte[16];
            g[10] = (byte) 0xff;
            g[11] = (byte) 0xff;
            System.arraycopy(h, 36, g, 12, 4);
            return Gid.of(g);
        }
        return Gid.of(Arrays.copyOfRange(h, 24, 40));
    }

    /** {@code r} got exactly one copy of {@code src} from {@code s} in its first slot of {@code dst}, and no more. */
    void assertOneCopy(Side r, Buf dst, Side s, Buf src, int group) {
        WorkCompletion wc = expectOk(r.rcq, WcOpcode.RECV, 100);
        assertEquals(GRH + LEN, wc.byteLen(), "byte_len at " + r);
        assertEquals(s.qp.qpNum(), wc.srcQp(), "src_qp at " + r);
        assertEquals(r.qp.qpNum(), wc.qpNum(), "qp_num at " + r);
        assertBytes(src.get(0, LEN), dst, GRH, "payload at " + r);
        assertFilled(dst, GRH + LEN, 16, 0xee, "after the payload at " + r);
        assertEquals(mgid(group), dgid(dst, 0), "the GRH's DGID at " + r);
        expectNone(r.rcq, 100);
    }

    @Test
    void everyAttachedQpGetsOneCopyAndTheSenderNone() {
        Side r1 = member("R1", 1);
        Side r2 = member("R2", 1);
        Side s = sender();
        Buf d1 = recvSlots(r1, 2);
        Buf d2 = recvSlots(r2, 2);
        recvSlots(s, 1);

        Buf src = sendToGroup(s, ahToGroup(s, 1), 11);
        assertOneCopy(r1, d1, s, src, 1);
        assertOneCopy(r2, d2, s, src, 1);
        expectNone(s.rcq, 100);
    }

    @Test
    void theSendersQpGetsACopyWhenAttached() {
        Side r1 = member("R1", 2);
        Side s = sender();
        s.qp.attachMcast(mgid(2), mlid(2));
        Buf d1 = recvSlots(r1, 2);
        Buf ds = recvSlots(s, 2);

        Buf src = sendToGroup(s, ahToGroup(s, 2), 12);
        assertOneCopy(r1, d1, s, src, 2);
        assertOneCopy(s, ds, s, src, 2);
    }

    @Test
    void attachingTwiceIsNoErrorAndGivesOneCopy() {
        Side s = sender();
        Side r1 = member("R1", 3);
        Buf d1 = recvSlots(r1, 2);
        r1.qp.attachMcast(mgid(3), mlid(3)); // again: no error, still one member

        assertOneCopy(r1, d1, s, sendToGroup(s, ahToGroup(s, 3), 13), 3);
        r1.qp.detachMcast(mgid(3), mlid(3));
        assertVerbsFails(Errno.EINVAL, () -> r1.qp.detachMcast(mgid(3), mlid(3)));
    }

    @Test
    void detachStopsDelivery() {
        Side r1 = member("R1", 4);
        Side r2 = member("R2", 4);
        Side s = sender();
        r2.qp.detachMcast(mgid(4), mlid(4));
        Buf d1 = recvSlots(r1, 2);
        recvSlots(r2, 1);
        AddressHandle ah = ahToGroup(s, 4);

        Buf src = sendToGroup(s, ah, 14);
        assertOneCopy(r1, d1, s, src, 4);
        expectNone(r2.rcq, 100);

        r1.qp.detachMcast(mgid(4), mlid(4));
        sendToGroup(s, ah, 15);
        expectNone(r1.rcq, 200);
        expectNone(r2.rcq, 0);
    }

    @Test
    void destroyingAQpDetachesIt() {
        Side s = sender();
        Side r1 = member("R1", 5);
        member("R2", 5).qp.destroy();
        Buf d1 = recvSlots(r1, 2);

        assertOneCopy(r1, d1, s, sendToGroup(s, ahToGroup(s, 5), 16), 5);
        r1.qp.destroy(); // the last member: the group goes with it
        Side r3 = receiver("R3");
        assertVerbsFails(Errno.EINVAL, () -> r3.qp.detachMcast(mgid(5), mlid(5)));
    }

    @Test
    void onlyUdQpsAttach() {
        QpPair rc = QpPair.rc(res);
        assertVerbsFails(Errno.EINVAL, () -> rc.b.qp.attachMcast(mgid(6), mlid(6)));
    }

    @Test
    void theGidMustBeMulticast() {
        Side r1 = receiver("R1");
        Gid unicast = bed.b().queryGid(bed.portB(), 0);
        assertVerbsFails(Errno.EINVAL, () -> r1.qp.attachMcast(unicast, mlid(7)));
        assertVerbsFails(Errno.EINVAL, () -> r1.qp.attachMcast(null, mlid(7)));
    }

    @Test
    void onInfinibandTheLidMustBeMulticast() {
        Side r1 = receiver("R1");
        if (bed.b().linkLayer(bed.portB()) != LinkLayer.INFINIBAND) {
            r1.qp.attachMcast(mgid(8), 5); // RoCE: the MLID is ignored (IBA A17.5.6)
            r1.qp.detachMcast(mgid(8), 5);
            return;
        }
        assertVerbsFails(Errno.EINVAL, () -> r1.qp.attachMcast(mgid(8), 5));
        assertVerbsFails(Errno.EINVAL, () -> r1.qp.attachMcast(mgid(8), 0xffff));
    }

    @Test
    void detachingWhatIsNotAttachedIsEinval() {
        Side r1 = receiver("R1");
        assertVerbsFails(Errno.EINVAL, () -> r1.qp.detachMcast(mgid(9), mlid(9)));
        Side r2 = member("R2", 9);
        assertVerbsFails(Errno.EINVAL, () -> r1.qp.detachMcast(mgid(9), mlid(9)));
        r2.qp.detachMcast(mgid(9), mlid(9));
    }
}
