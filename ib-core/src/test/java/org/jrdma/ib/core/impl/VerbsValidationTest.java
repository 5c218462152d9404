package org.jrdma.ib.core.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqAttrMask;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.ib.core.testdriver.TestDriver;
import org.junit.jupiter.api.Test;

class VerbsValidationTest {
    final IbCore core = IbCore.newInstance();
    final TestDriver driver = new TestDriver(2, LinkLayer.INFINIBAND, 0x0002c90300000100L);
    final RegisteredDevice handle = core.registrar().register(driver.registration("mlx%d"));
    final IbDevice dev = handle.device();
    final RecordingClient owner = new RecordingClient("ulp");

    interface ThrowingRunnable {
        void run();
    }

    static VerbsException fails(Errno errno, String text, ThrowingRunnable r) {
        VerbsException e = assertThrows(VerbsException.class, r::run);
        assertEquals(errno, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains(text), "'" + e.getMessage() + "' should say '" + text + "'");
        return e;
    }

    CompletionQueue cq(int n) {
        return dev.createCq(owner, new CqInitAttr().cqe(n));
    }

    QueuePair rcQp(ProtectionDomain pd, CompletionQueue cq) {
        return pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1)));
    }

    static void toRts(QueuePair qp, int destQpn) {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ));
        qp.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(1).dlid(2)).pathMtu(Mtu.MTU_1024)
                .destQpNum(destQpn).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12));
        qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1));
    }

    @Test
    void rcQpWalksThroughTheStatesAndRefusesBadTransitions() {
        ProtectionDomain pd = dev.allocPd(owner);
        QueuePair qp = rcQp(pd, cq(64));
        assertEquals(QpState.RESET, qp.state());
        fails(Errno.EINVAL, "RESET -> RTR is not allowed", () -> qp.modify(new QpAttr().state(QpState.RTR)));
        fails(Errno.EINVAL, "requires [ACCESS_FLAGS]",
                () -> qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1)));
        fails(Errno.EINVAL, "does not allow [QKEY]", () -> qp.modify(new QpAttr().state(QpState.INIT)
                .pkeyIndex(0).port(1).accessFlags(0).qkey(5)));
        assertEquals(QpState.RESET, qp.state(), "a refused modify changes nothing");
        toRts(qp, 0x42);
        assertEquals(QpState.RTS, qp.state());
        qp.modify(new QpAttr().state(QpState.ERR));
        qp.modify(new QpAttr().state(QpState.RESET));
        assertEquals(QpState.RESET, qp.state());
    }

    @Test
    void attributeRangesAreCheckedAgainstTheDevice() {
        QueuePair qp = rcQp(dev.allocPd(owner), cq(8));
        fails(Errno.EINVAL, "port 3 out of range 1..2", () -> qp.modify(new QpAttr().state(QpState.INIT)
                .pkeyIndex(0).port(3).accessFlags(0)));
        fails(Errno.EINVAL, "pkey_index 1 out of range 0..0", () -> qp.modify(new QpAttr().state(QpState.INIT)
                .pkeyIndex(1).port(1).accessFlags(0)));
        fails(Errno.EINVAL, "qp_access_flags", () -> qp.modify(new QpAttr().state(QpState.INIT)
                .pkeyIndex(0).port(1).accessFlags(Access.MW_BIND)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
        QpAttr rtr = new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(1).dlid(2)).pathMtu(Mtu.MTU_1024)
                .destQpNum(1).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12);
        fails(Errno.EINVAL, "dest_qp_num 16777216 out of range", () -> qp.modify(rtr.copy().destQpNum(1 << 24)));
        fails(Errno.EINVAL, "rq_psn -1 out of range", () -> qp.modify(rtr.copy().rqPsn(-1)));
        fails(Errno.EINVAL, "max_dest_rd_atomic 17 out of range 0..16", () -> qp.modify(rtr.copy().maxDestRdAtomic(17)));
        fails(Errno.EINVAL, "min_rnr_timer 32", () -> qp.modify(rtr.copy().minRnrTimer(32)));
        fails(Errno.EINVAL, "sgid_index 4 out of range 0..3",
                () -> qp.modify(rtr.copy().av(new AhAttr().portNum(1).grh(Gid.ZERO, 4))));
        qp.modify(rtr);
        QpAttr rts = new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1);
        fails(Errno.EINVAL, "retry_cnt 8 out of range 0..7", () -> qp.modify(rts.copy().retryCnt(8)));
        fails(Errno.EINVAL, "rnr_retry 8", () -> qp.modify(rts.copy().rnrRetry(8)));
        fails(Errno.EINVAL, "timeout 32", () -> qp.modify(rts.copy().timeout(32)));
        fails(Errno.EINVAL, "max_rd_atomic 17 out of range 0..16", () -> qp.modify(rts.copy().maxRdAtomic(17)));
        qp.modify(rts);
    }

    @Test
    void createQpChecksCapsCqsAndSpecialQps() {
        ProtectionDomain pd = dev.allocPd(owner);
        CompletionQueue cq = cq(8);
        fails(Errno.EINVAL, "max_send_wr 1025 out of range 0..1024", () -> pd.createQp(new QpInitAttr().cq(cq)
                .cap(new QpCap().maxSendWr(TestDriver.MAX_QP_WR + 1))));
        fails(Errno.EINVAL, "max_send_sge 5 out of range 0..4",
                () -> pd.createQp(new QpInitAttr().cq(cq).cap(new QpCap().maxSendSge(5))));
        fails(Errno.EINVAL, "max_inline_data 65 out of range 0..64",
                () -> pd.createQp(new QpInitAttr().cq(cq).cap(new QpCap().maxInlineData(65))));
        fails(Errno.EINVAL, "send CQ is missing", () -> pd.createQp(new QpInitAttr().recvCq(cq)));
        IbDevice other = core.registrar().register(new TestDriver(1, LinkLayer.ETHERNET, 5).registration("rxe%d")).device();
        CompletionQueue foreign = other.createCq(owner, new CqInitAttr().cqe(4));
        fails(Errno.EINVAL, "belongs to device rxe0", () -> pd.createQp(new QpInitAttr().sendCq(foreign).recvCq(cq)));
        QueuePair gsi = pd.createQp(new QpInitAttr().qpType(QpType.GSI).portNum(1).cq(cq));
        assertEquals(1, gsi.qpNum());
        fails(Errno.EINVAL, "a GSI QP already exists on port 1",
                () -> pd.createQp(new QpInitAttr().qpType(QpType.GSI).portNum(1).cq(cq)));
        fails(Errno.EINVAL, "port 0 out of range", () -> pd.createQp(new QpInitAttr().qpType(QpType.SMI).cq(cq)));
        ProtectionDomain rpd = other.allocPd(owner);
        fails(Errno.EINVAL, "SMI QP0 exists only on InfiniBand ports",
                () -> rpd.createQp(new QpInitAttr().qpType(QpType.SMI).portNum(1).cq(foreign)));
        fails(Errno.EINVAL, "RESET -> INIT on a GSI QP does not allow [PORT]", () -> gsi.modify(new QpAttr().state(QpState.INIT)
                .pkeyIndex(0).qkey(0x80010000).port(1)));
    }

    @Test
    void resourcesInUseCannotBeFreed() {
        ProtectionDomain pd = dev.allocPd(owner);
        CompletionQueue cq = cq(8);
        MemoryRegion mr = pd.regMr(ByteBuffer.allocate(4096), Access.LOCAL_WRITE);
        QueuePair qp = rcQp(pd, cq);
        fails(Errno.EBUSY, "PD 0 is still used by 1 QP, 1 MR", pd::dealloc);
        fails(Errno.EBUSY, "CQ 0 is still used by 1 QP", cq::destroy);
        qp.destroy();
        fails(Errno.EINVAL, "QP 17 was destroyed", qp::destroy);
        fails(Errno.EINVAL, "was destroyed", () -> qp.postSend(new SendWr()));
        cq.destroy();
        fails(Errno.EBUSY, "still used by 1 MR", pd::dealloc);
        mr.dereg();
        pd.dealloc();
        assertEquals(0, driver.live.get(), "every driver object was destroyed");
    }

    @Test
    void mrAccessAndCountsAreChecked() {
        ProtectionDomain pd = dev.allocPd(owner);
        fails(Errno.EINVAL, "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE",
                () -> pd.regMr(ByteBuffer.allocate(64), Access.REMOTE_WRITE));
        fails(Errno.EINVAL, "unknown access flags", () -> pd.regMr(ByteBuffer.allocate(64), 1 << 20));
        fails(Errno.EINVAL, "wraps around", () -> pd.regMr(ByteBuffer.allocate(64), -16L, 0));
        MemoryRegion a = pd.regMr(ByteBuffer.allocateDirect(8192), Access.LOCAL_WRITE);
        MemoryRegion b = pd.regMr(ByteBuffer.allocate(100), 0);
        assertTrue(b.iova() >= a.iova() + 8192, "assigned I/O virtual addresses do not overlap");
        assertEquals(8192, a.length());
        for (int i = 2; i < 64; i++) {
            pd.regMr(ByteBuffer.allocate(1), 0);
        }
        fails(Errno.ENOMEM, "no more MRs (device limit 64)", () -> pd.regMr(ByteBuffer.allocate(1), 0));
    }

    /**
     * Found by a tester: a read-only buffer registered with write access let an RDMA WRITE into it fail in the
     * engine for ever (ReadOnlyBufferException, logged 163,212 times in 100 s). ib_umem_get pins for writing
     * and fails with EFAULT on a read-only mapping; a zero-length MR is EINVAL.
     */
    @Test
    void readOnlyBuffersTakeNoWriteAccessAndEmptyOnesNone() {
        ProtectionDomain pd = dev.allocPd(owner);
        ByteBuffer ro = ByteBuffer.allocateDirect(4096).asReadOnlyBuffer();
        for (int access : new int[] {Access.LOCAL_WRITE, Access.LOCAL_WRITE | Access.REMOTE_WRITE,
                Access.LOCAL_WRITE | Access.REMOTE_ATOMIC}) {
            fails(Errno.EFAULT, "the buffer is read-only", () -> pd.regMr(ro, access));
        }
        assertEquals(4096, pd.regMr(ro, Access.REMOTE_READ).length(), "REMOTE_READ of read-only memory is fine");
        fails(Errno.EINVAL, "regMr: length 0", () -> pd.regMr(ByteBuffer.allocate(0), 0));
        fails(Errno.EINVAL, "regMr: length 0", () -> pd.regMr(ByteBuffer.allocate(8).position(8), Access.LOCAL_WRITE));
    }

    /** Found by a tester: null arguments threw NullPointerException from inside, or were silently accepted. */
    @Test
    void nullArgumentsAreEinvalNamingTheArgument() {
        ProtectionDomain pd = dev.allocPd(owner);
        CompletionQueue cq = cq(8);
        QueuePair qp = rcQp(pd, cq);
        fails(Errno.EINVAL, "poll: wc is null", () -> cq.poll(null));
        fails(Errno.EINVAL, "poll: wc is null", () -> cq.poll(null, 1));
        fails(Errno.EINVAL, "poll: wc[0] is null", () -> cq.poll(new WorkCompletion[1]));
        fails(Errno.EINVAL, "poll: wc[1] is null", () -> cq.poll(new WorkCompletion[] {new WorkCompletion(), null}));
        fails(Errno.EINVAL, "sg_list[0] is null", () -> new SendWr().sgList((Sge) null));
        fails(Errno.EINVAL, "sg_list[1] is null", () -> new RecvWr().sgList(new Sge(0, 1, 0), null));
        fails(Errno.EINVAL, "postSend: wr is null", () -> qp.postSend(null));
        fails(Errno.EINVAL, "postRecv: wr is null", () -> qp.postRecv(null));
        fails(Errno.EINVAL, "reqNotify: type is null", () -> cq.reqNotify(null, false));
        fails(Errno.EINVAL, "createCq: owner is null", () -> dev.createCq(null, new CqInitAttr().cqe(4)));
        fails(Errno.EINVAL, "allocPd: owner is null", () -> dev.allocPd(null));
        assertEquals(0, cq.poll(new WorkCompletion[] {new WorkCompletion()}), "a good poll still works");
    }

    @Test
    void cqAndSrqSizesAreChecked() {
        fails(Errno.EINVAL, "cqe 0 out of range 1..4096", () -> cq(0));
        fails(Errno.EINVAL, "cqe 4097", () -> cq(4097));
        fails(Errno.EINVAL, "comp_vector 1 out of range 0..0",
                () -> dev.createCq(owner, new CqInitAttr().cqe(1).compVector(1)));
        ProtectionDomain pd = dev.allocPd(owner);
        fails(Errno.EINVAL, "max_wr 257 out of range 1..256",
                () -> pd.createSrq(new SrqInitAttr().attr(new SrqAttr().maxWr(257))));
        fails(Errno.EINVAL, "srq_limit 9 above max_wr 8",
                () -> pd.createSrq(new SrqInitAttr().attr(new SrqAttr().maxWr(8).srqLimit(9))));
        SharedReceiveQueue srq = pd.createSrq(new SrqInitAttr().attr(new SrqAttr().maxWr(8)));
        fails(Errno.EINVAL, "srq_limit 9 above max_wr 8",
                () -> srq.modify(new SrqAttr().srqLimit(9), EnumSet.of(SrqAttrMask.LIMIT)));
        srq.modify(new SrqAttr().srqLimit(4), EnumSet.of(SrqAttrMask.LIMIT));
        assertEquals(4, srq.query().srqLimit());
        QueuePair qp = pd.createQp(new QpInitAttr().cq(cq(4)).srq(srq).cap(new QpCap().maxSendWr(1)));
        fails(Errno.EINVAL, "post to the SRQ", () -> qp.postRecv(new RecvWr()));
        fails(Errno.EBUSY, "SRQ 0 is still used by 1 QP", srq::destroy);
    }

    @Test
    void asyncEventsReachTheRightHandlers() {
        List<AsyncEvent> deviceEvents = new CopyOnWriteArrayList<>();
        List<AsyncEvent> srqEvents = new CopyOnWriteArrayList<>();
        dev.registerEventHandler(deviceEvents::add);
        handle.dispatchPortEvent(EventType.PORT_ERR, 2);
        handle.dispatchPortEvent(EventType.PORT_ACTIVE, 2);
        handle.dispatchDeviceFatal();
        ProtectionDomain pd = dev.allocPd(owner);
        SharedReceiveQueue srq = pd.createSrq(new SrqInitAttr().attr(new SrqAttr().maxWr(8)).eventHandler(srqEvents::add));
        TestDriver.raise(((SrqImpl) srq).dsrq, EventType.SRQ_LIMIT_REACHED);
        assertEquals(List.of("mlx0: port error (port 2)", "mlx0: port active (port 2)", "mlx0: device fatal error (device)"),
                deviceEvents.stream().map(AsyncEvent::toString).toList());
        assertEquals(1, srqEvents.size());
        assertSame(srq, srqEvents.get(0).srq());
        assertEquals(EventType.SRQ_LIMIT_REACHED, srqEvents.get(0).type());
        assertThrows(IllegalArgumentException.class, () -> handle.dispatchPortEvent(EventType.QP_FATAL, 1));
    }

    @Test
    void flushedWorkRequestsCompleteWithWrFlushErrAndWakeTheHandler() {
        List<String> handled = new CopyOnWriteArrayList<>();
        CompletionQueue cq = dev.createCq(owner, new CqInitAttr().cqe(64).compHandler(c -> handled.add("cq")));
        QueuePair qp = rcQp(dev.allocPd(owner), cq);
        toRts(qp, 7);
        qp.postRecv(new RecvWr().wrId(100).next(new RecvWr().wrId(101)));
        qp.postSend(new SendWr().wrId(1).sendFlags(SendFlags.SIGNALED).next(new SendWr().wrId(2)));
        assertFalse(cq.reqNotify(CqNotify.NEXT_COMP, true), "nothing completed yet");
        qp.modify(new QpAttr().state(QpState.ERR));
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
                new WorkCompletion()};
        assertEquals(4, cq.poll(wc));
        for (int i = 0; i < 4; i++) {
            assertEquals(WcStatus.WR_FLUSH_ERR, wc[i].status());
            assertSame(qp, wc[i].qp());
        }
        assertEquals(List.of(1L, 2L, 100L, 101L), List.of(wc[0].wrId(), wc[1].wrId(), wc[2].wrId(), wc[3].wrId()));
        assertEquals(List.of("cq"), handled, "the armed handler ran once");
    }

    @Test
    void postFailureNamesTheBadWorkRequest() {
        QueuePair qp = rcQp(dev.allocPd(owner), cq(64));
        toRts(qp, 7);
        SendWr third = new SendWr().wrId(3).sgList(new org.jrdma.ib.core.Sge(), new org.jrdma.ib.core.Sge());
        SendWr chain = new SendWr().wrId(1).next(new SendWr().wrId(2).next(third));
        PostException e = assertThrows(PostException.class, () -> qp.postSend(chain));
        assertSame(third, e.badSendWr());
    }

    @Test
    void hotUnplugRemovesClientsThenDestroysAndFlushesLeftovers() {
        List<String> calls = new CopyOnWriteArrayList<>();
        class LeakyClient extends RecordingClient {
            QueuePair qp;

            LeakyClient(List<String> log) {
                super("leaky", log);
            }

            @Override
            public void add(IbDevice device) {
                super.add(device);
                CompletionQueue cq = device.createCq(this, new CqInitAttr().cqe(16).compHandler(c -> calls.add("handler after remove!")));
                qp = rcQp(device.allocPd(this), cq);
                toRts(qp, 9);
                qp.postRecv(new RecvWr().wrId(1).next(new RecvWr().wrId(2)));
                qp.postSend(new SendWr().wrId(3));
                cq.reqNotify(CqNotify.NEXT_COMP, false);
            }
        }
        LeakyClient leaky = new LeakyClient(calls);
        core.registerClient(leaky);
        fails(Errno.EINVAL, "allocPd: owner is null", () -> dev.allocPd(null));
        dev.allocPd(new RecordingClient("never-registered")); // owned by a client ib-core never added: reaped too
        assertEquals(4, dev.resources().size());
        UnregisterReport r = handle.unregister();
        assertEquals(List.of("leaky add:mlx0", "leaky remove:mlx0"), calls, "no handler ran after remove");
        assertEquals(List.of("leaky"), r.clientsRemoved());
        assertEquals(4, r.leaked().size(), r.leaked().toString());
        assertTrue(r.leaked().stream().allMatch(i -> i.owner().equals("leaky") || i.owner().equals("never-registered")));
        assertEquals(EnumSet.of(ResourceType.PD, ResourceType.CQ, ResourceType.QP),
                EnumSet.copyOf(r.leaked().stream().map(ResourceInfo::type).toList()));
        assertEquals(0, driver.live.get(), "every driver object was destroyed");
        assertFalse(leaky.qp.isValid());
        fails(Errno.ENODEV, "device mlx0 was unregistered", () -> dev.allocPd(owner));
        assertTrue(core.devices().isEmpty());
    }

    @Test
    void flushCountIsReportedForLeftoversOfUnregisteredOwners() {
        RecordingClient ghost = new RecordingClient("ghost"); // never registered: remove is never called on it
        CompletionQueue cq = dev.createCq(ghost, new CqInitAttr().cqe(16));
        QueuePair qp = rcQp(dev.allocPd(ghost), cq);
        toRts(qp, 9);
        qp.postRecv(new RecvWr().wrId(1).next(new RecvWr().wrId(2)));
        qp.postSend(new SendWr().wrId(3));
        UnregisterReport r = handle.unregister();
        assertEquals(3, r.flushedWorkRequests());
        assertEquals(3, r.leaked().size());
    }

    @Test
    void resourceTrackingNamesOwners() {
        RecordingClient other = new RecordingClient("other");
        ProtectionDomain pd = dev.allocPd(owner);
        dev.createCq(other, new CqInitAttr().cqe(2));
        pd.regMr(ByteBuffer.allocate(16), 0);
        pd.allocMw(MwType.TYPE_2);
        pd.createAh(new AhAttr().portNum(1).dlid(3));
        List<ResourceInfo> rs = dev.resources();
        assertEquals(List.of("PD:ulp", "CQ:other", "MR:ulp", "MW:ulp", "AH:ulp"),
                rs.stream().map(i -> i.type() + ":" + i.owner()).toList());
        assertNotNull(rs.get(2).summary());
        fails(Errno.EINVAL, "a RoCE address vector needs a GRH", () -> core.registrar()
                .register(new TestDriver(1, LinkLayer.ETHERNET, 5).registration("rxe%d")).device()
                .allocPd(owner).createAh(new AhAttr().portNum(1)));
    }
}
