package org.jrdma.ib.mad;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.mad.impl.MadLayer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The MAD layer between two devices of one fabric, written once and run on hw-loopback (IB, LID-routed)
 * and hw-rxe (RoCE, GRH-addressed).
 */
abstract class AbstractMadTest {
    /** Vendor classes (0x30..0x4f): nobody but the test claims them. */
    static final int VENDOR = 0x30;
    static final int UNCLAIMED = 0x31;
    static final int UNCLAIMED_GET = 0x32;
    static final long WAIT_S = 5;

    MadFabric f;
    MadLayer mad;

    abstract MadFabric fabric();

    @BeforeEach
    void setUp() {
        f = fabric();
        mad = new MadLayer(f.core());
    }

    @AfterEach
    void tearDown() {
        try {
            mad.close();
        } finally {
            f.close();
        }
    }

    record Done(MadSend send, WcStatus status) {
    }

    /** Records every callback and the thread it ran on. */
    static final class Recorder implements MadHandler {
        final BlockingQueue<MadRecv> recvs = new LinkedBlockingQueue<>();
        final BlockingQueue<Done> dones = new LinkedBlockingQueue<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        volatile BiConsumer<MadAgent, MadRecv> onRecv;

        @Override
        public void recv(MadAgent agent, MadRecv recv) {
            threads.add(Thread.currentThread().getName());
            if (onRecv != null) {
                onRecv.accept(agent, recv);
            }
            recvs.add(recv);
        }

        @Override
        public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
            threads.add(Thread.currentThread().getName());
            dones.add(new Done(send, status));
        }
    }

    static <T> T take(BlockingQueue<T> q) throws InterruptedException {
        T t = q.poll(WAIT_S, TimeUnit.SECONDS);
        assertNotNull(t, "nothing arrived in " + WAIT_S + " s");
        return t;
    }

    static Mad request(int mgmtClass, int method, long tid) {
        Mad m = new Mad().baseVersion(1).mgmtClass(mgmtClass).classVersion(1).method(method).tid(tid).attrId(0x1234)
                .attrMod(0xdeadbeefL);
        for (int i = Mad.HDR_SIZE; i < Mad.SIZE; i++) {
            m.u8(i, i);
        }
        return m;
    }

    /** What the answering agent makes of a request: GetResp, status 0, data inverted. */
    static Mad response(Mad req) {
        Mad r = new Mad(req.bytes().clone()).method(Mad.METHOD_GET_RESP).status(0);
        for (int i = Mad.HDR_SIZE; i < Mad.SIZE; i++) {
            r.u8(i, ~req.u8(i));
        }
        return r;
    }

    /** An agent on B claiming VENDOR v1 Get that answers every request with {@link #response}. */
    Recorder answering() {
        Recorder rb = new Recorder();
        rb.onRecv = (agent, recv) -> agent.send(new MadSend(response(recv.mad())).ah(agent.ahAttrFromWc(recv))
                .remoteQpn(recv.srcQp()).pkeyIndex(recv.pkeyIndex()));
        mad.registerAgent(f.b(), 1, QpType.GSI, new MadRegistration(VENDOR, 1, Mad.METHOD_GET), rb);
        return rb;
    }

    MadSend sendTo(IbDevice d, Mad m, int timeoutMs, int retries) {
        return new MadSend(m).ah(f.avTo(d)).timeoutMs(timeoutMs).retries(retries);
    }

    long counter(IbDevice d, String name) {
        Long v = mad.counters(d, 1).get(name);
        assertNotNull(v, "no counter " + name + " in " + mad.counters(d, 1));
        return v;
    }

    /** Waits until the counter reaches {@code expected} (the receive side counts on the MAD thread). */
    void awaitCounter(IbDevice d, String name, long expected) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (counter(d, name) < expected && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(expected, counter(d, name), name + " of " + d.name() + ": " + mad.counters(d, 1));
    }

    // ------------------------------------------------------------------------------------------ tests

    @Test
    void getIsAnsweredByThePeersAgent() throws Exception {
        Recorder rb = answering();
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        long tid = a.newTid();
        assertEquals(a.hiTid(), (int) (tid >>> 32));
        Mad req = request(VENDOR, Mad.METHOD_GET, tid);
        MadSend s = sendTo(f.b(), req, 2000, 1);
        a.send(s);

        MadRecv atB = take(rb.recvs);
        assertArrayEquals(req.bytes(), atB.mad().bytes());
        assertNull(atB.request());
        assertEquals(1, atB.srcQp());
        if (f.infiniband()) {
            assertEquals(f.a().queryPort(1).lid(), atB.slid());
        } else {
            assertEquals(0, atB.slid());
            assertEquals(f.a().queryGid(1, 0), atB.sgid(), "sender GID from the GRH");
            assertEquals(f.b().queryGid(1, 0), atB.dgid());
        }

        MadRecv r = take(ra.recvs);
        assertSame(s, r.request());
        assertArrayEquals(response(req).bytes(), r.mad().bytes(), "the response, byte for byte");
        assertEquals(1, r.srcQp());
        if (!f.infiniband()) {
            assertEquals(f.b().queryGid(1, 0), r.sgid());
        }
        Done d = take(ra.dones);
        assertSame(s, d.send());
        assertEquals(WcStatus.SUCCESS, d.status());
        assertTrue(ra.threads.stream().allMatch("ib-mad"::equals), ra.threads.toString());
        assertTrue(rb.threads.stream().allMatch("ib-mad"::equals), rb.threads.toString());

        assertEquals(1, counter(f.a(), "sent"));
        assertEquals(0, counter(f.a(), "retries"));
        awaitCounter(f.a(), "rcvd", 1);
        assertEquals(1, counter(f.b(), "sent"));
        assertEquals(1, counter(f.b(), "rcvd"));
        Thread.sleep(50);
        assertTrue(ra.recvs.isEmpty() && ra.dones.isEmpty(), "one response, one sendDone");
    }

    @Test
    void responsesAreRoutedByTid() throws Exception {
        answering();
        Recorder r1 = new Recorder();
        Recorder r2 = new Recorder();
        MadAgent a1 = mad.registerAgent(f.a(), 1, QpType.GSI, null, r1);
        MadAgent a2 = mad.registerAgent(f.a(), 1, QpType.GSI, null, r2);
        assertNotEquals(a1.hiTid(), a2.hiTid());
        MadSend s1 = sendTo(f.b(), request(VENDOR, Mad.METHOD_GET, a1.newTid()), 2000, 0);
        MadSend s2 = sendTo(f.b(), request(VENDOR, Mad.METHOD_GET, a2.newTid()), 2000, 0);
        MadSend s1b = sendTo(f.b(), request(VENDOR, Mad.METHOD_GET, a1.newTid()), 2000, 0);
        a1.send(s1);
        a2.send(s2);
        a1.send(s1b);

        for (int i = 0; i < 2; i++) {
            MadRecv r = take(r1.recvs);
            assertTrue(r.request() == s1 || r.request() == s1b, "a1 got " + r.request());
            assertEquals(r.request().mad().tid(), r.mad().tid());
        }
        MadRecv r = take(r2.recvs);
        assertSame(s2, r.request());
        assertEquals(s2.mad().tid(), r.mad().tid());
        for (int i = 0; i < 2; i++) {
            assertEquals(WcStatus.SUCCESS, take(r1.dones).status());
        }
        assertEquals(WcStatus.SUCCESS, take(r2.dones).status());
        Thread.sleep(50);
        assertTrue(r1.recvs.isEmpty() && r2.recvs.isEmpty());
        assertEquals(0, counter(f.a(), "dropped_unmatched_resp"));
    }

    @Test
    void unansweredRequestIsResentThenTimesOut() throws Exception {
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        int timeout = 150;
        int retries = 2;
        MadSend s = sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, a.newTid()), timeout, retries);
        long t0 = System.nanoTime();
        a.send(s);
        Done d = take(ra.dones);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertSame(s, d.send());
        assertEquals(WcStatus.RESP_TIMEOUT_ERR, d.status());
        assertTrue(ms >= (retries + 1) * timeout - 20, "timed out after " + ms + " ms");
        assertTrue(ms < (retries + 1) * timeout + 1500, "timed out after " + ms + " ms");
        assertEquals(retries + 1, counter(f.a(), "sent"), "transmissions");
        assertEquals(retries, counter(f.a(), "retries"));
        assertEquals(1, counter(f.a(), "timeouts"));
        awaitCounter(f.b(), "rcvd", retries + 1);
        awaitCounter(f.b(), "dropped_unclaimed", retries + 1);
        assertEquals(0, counter(f.b(), "sent"), "a Send method is not answered");
        assertTrue(ra.recvs.isEmpty());
        assertFalse(a.modify(s, 100), "not outstanding any more");
    }

    @Test
    void modifyRestartsTheResponseTimer() throws Exception {
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        MadSend s = sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, a.newTid()), 100, 0);
        long t0 = System.nanoTime();
        a.send(s);
        Thread.sleep(50);
        assertTrue(a.modify(s, 700), "an MRA asks for more time");
        Done d = take(ra.dones);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(WcStatus.RESP_TIMEOUT_ERR, d.status());
        assertTrue(ms >= 700, "timed out after " + ms + " ms");
        assertEquals(1, counter(f.a(), "sent"));
    }

    @Test
    void duplicateClaimIsEbusy() {
        Recorder r = new Recorder();
        MadAgent first = mad.registerAgent(f.b(), 1, QpType.GSI, new MadRegistration(VENDOR, 1, Mad.METHOD_GET), r);
        VerbsException e = assertThrows(VerbsException.class, () -> mad.registerAgent(f.b(), 1, QpType.GSI,
                new MadRegistration(VENDOR, 1, Mad.METHOD_SET, Mad.METHOD_GET), r));
        assertEquals(Errno.EBUSY, e.errno());
        // another version, another method, another port's device: all fine
        mad.registerAgent(f.b(), 1, QpType.GSI, new MadRegistration(VENDOR, 2, Mad.METHOD_GET), r);
        mad.registerAgent(f.b(), 1, QpType.GSI, new MadRegistration(VENDOR, 1, Mad.METHOD_SET), r);
        mad.registerAgent(f.a(), 1, QpType.GSI, new MadRegistration(VENDOR, 1, Mad.METHOD_GET), r);
        // the claim is free again once its agent is closed
        first.close();
        mad.registerAgent(f.b(), 1, QpType.GSI, new MadRegistration(VENDOR, 1, Mad.METHOD_GET), r);

        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> mad.registerAgent(f.b(), 1, QpType.GSI,
                new MadRegistration(Mad.CLASS_SUBN_LID_ROUTED, 1, Mad.METHOD_GET), r)).errno(), "SMP class on QP1");
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> mad.registerAgent(f.b(), 1, QpType.UD, null, r)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> mad.registerAgent(f.b(), 2, QpType.GSI, null, r)).errno());
        if (f.infiniband()) {
            // the SMA claims SubnGet/SubnSet of both SMP classes; Trap is free
            assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, () -> mad.registerAgent(f.b(), 1,
                    QpType.SMI, new MadRegistration(Mad.CLASS_SUBN_LID_ROUTED, 1, Mad.METHOD_GET), r)).errno());
            mad.registerAgent(f.b(), 1, QpType.SMI, new MadRegistration(Mad.CLASS_SUBN_LID_ROUTED, 1, Mad.METHOD_TRAP),
                    r);
            assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, () -> mad.registerAgent(f.b(), 1,
                    QpType.SMI, new MadRegistration(Mad.CLASS_SUBN_LID_ROUTED, 1, Mad.METHOD_TRAP), r)).errno());
        } else {
            assertEquals(Errno.ENODEV, assertThrows(VerbsException.class,
                    () -> mad.registerAgent(f.b(), 1, QpType.SMI, null, r)).errno(), "no QP0 on RoCE");
        }
    }

    @Test
    void unclaimedGetIsAnsweredUnsupported() throws Exception {
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        Mad req = request(UNCLAIMED_GET, Mad.METHOD_GET, a.newTid());
        MadSend s = sendTo(f.b(), req, 2000, 0);
        a.send(s);
        MadRecv r = take(ra.recvs);
        assertSame(s, r.request());
        assertEquals(Mad.METHOD_GET_RESP, r.mad().method());
        assertEquals(Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB, r.mad().status());
        assertEquals(req.tid(), r.mad().tid());
        assertEquals(req.attrId(), r.mad().attrId());
        assertEquals(WcStatus.SUCCESS, take(ra.dones).status());
        assertEquals(1, counter(f.b(), "unsupported_replies"));
        assertEquals(0, counter(f.b(), "dropped_unclaimed"));

        // Set as well
        MadSend set = sendTo(f.b(), request(UNCLAIMED_GET, Mad.METHOD_SET, a.newTid()), 2000, 0);
        a.send(set);
        assertEquals(Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB, take(ra.recvs).mad().status());
        assertEquals(WcStatus.SUCCESS, take(ra.dones).status());
    }

    @Test
    void unclaimedDirectedRouteGetIsAnsweredWithTheDirectionBit() throws Exception {
        if (!f.infiniband()) {
            return; // no QP0 on RoCE
        }
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.SMI, null, ra);
        // a directed-route SMP of one hop (permissive DR LIDs) for an attribute B's SMA does not know
        Mad req = request(Mad.CLASS_SUBN_DIRECTED_ROUTE, Mad.METHOD_GET, a.newTid()).status(0);
        req.u8(6, 0).u8(7, 1).u16(32, 0xffff).u16(34, 0xffff).u8(128 + 1, 1);
        MadSend s = sendTo(f.b(), req, 2000, 0).remoteQpn(0).remoteQkey(0);
        a.send(s);
        MadRecv r = take(ra.recvs);
        assertSame(s, r.request());
        assertEquals(0, r.srcQp());
        assertEquals(0x8000 | Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB, r.mad().status());
        assertEquals(WcStatus.SUCCESS, take(ra.dones).status());
    }

    @Test
    void malformedAndStrayMadsAreDroppedAndCounted() throws Exception {
        Recorder rb = answering();
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        // base version 2
        a.send(sendTo(f.b(), request(VENDOR, Mad.METHOD_GET, a.newTid()).baseVersion(2), 0, 0));
        // an SMP class on QP1
        a.send(sendTo(f.b(), request(Mad.CLASS_SUBN_LID_ROUTED, Mad.METHOD_GET, a.newTid()), 0, 0));
        // a response nobody asked for
        a.send(sendTo(f.b(), request(VENDOR, Mad.METHOD_GET_RESP, 0x7777_0000_0001L), 0, 0));
        for (int i = 0; i < 3; i++) {
            assertEquals(WcStatus.SUCCESS, take(ra.dones).status());
        }
        // 100 bytes from an ordinary UD QP: too short for a MAD
        sendRaw(f.a(), f.b(), 100);
        awaitCounter(f.b(), "dropped_malformed", 3);
        awaitCounter(f.b(), "dropped_unmatched_resp", 1);
        awaitCounter(f.b(), "rcvd", 4);
        assertTrue(rb.recvs.isEmpty(), "no callback for any of them");
        assertEquals(0, counter(f.b(), "sent"));

        // and the port still works
        MadSend s = sendTo(f.b(), request(VENDOR, Mad.METHOD_GET, a.newTid()), 2000, 0);
        a.send(s);
        assertSame(s, take(ra.recvs).request());
        assertEquals(WcStatus.SUCCESS, take(ra.dones).status());
    }

    @Test
    void cancelFlushes() throws Exception {
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        MadSend s = sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, a.newTid()), 10_000, 3);
        a.send(s);
        awaitCounter(f.b(), "rcvd", 1);
        a.cancel(s);
        Done d = take(ra.dones);
        assertSame(s, d.send());
        assertEquals(WcStatus.WR_FLUSH_ERR, d.status());
        assertFalse(a.modify(s, 100));
        a.cancel(s); // a second cancel is a no-op
        Thread.sleep(50);
        assertTrue(ra.dones.isEmpty());
        assertEquals(0, counter(f.a(), "timeouts"));
    }

    @Test
    void sendWithoutTimeoutIsDoneOnceSent() throws Exception {
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        MadSend s = sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, a.newTid()), 0, 0);
        a.send(s);
        Done d = take(ra.dones);
        assertSame(s, d.send());
        assertEquals(WcStatus.SUCCESS, d.status());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.send(new MadSend(new Mad()))).errno(),
                "no destination");
    }

    @Test
    void manySendsQueueBehindTheSendRing() throws Exception {
        Recorder rb = answering();
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        // hold the MAD thread in a callback, so no send buffer is freed while the sends are posted
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        MadAgent blocker = mad.registerAgent(f.a(), 1, QpType.GSI, null, new MadHandler() {
            public void recv(MadAgent agent, MadRecv recv) {
            }

            public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
                held.countDown();
                try {
                    release.await(WAIT_S, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        blocker.send(sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, blocker.newTid()), 0, 0));
        assertTrue(held.await(WAIT_S, TimeUnit.SECONDS));
        int n = 200;
        for (int i = 0; i < n; i++) {
            a.send(sendTo(f.b(), request(VENDOR, Mad.METHOD_GET, a.newTid()), 500, 5));
        }
        assertEquals(n - 64, counter(f.a(), "send_queued"), "64 send buffers, the rest waits");
        release.countDown();
        for (int i = 0; i < n; i++) {
            assertEquals(WcStatus.SUCCESS, take(ra.dones).status());
        }
        assertEquals(n, ra.recvs.size());
        // UD loses what finds no receive buffer posted (hw-rxe drops like a NIC): resends make up for it
        assertEquals(1 + n + counter(f.a(), "retries"), counter(f.a(), "sent"), "the blocker, the requests, resends");
        assertTrue(rb.recvs.size() >= n);
    }

    @Test
    void deviceRemovalFlushesAndClosesAgents() throws Exception {
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        MadSend s1 = sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, a.newTid()), 10_000, 0);
        MadSend s2 = sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, a.newTid()), 10_000, 0);
        a.send(s1);
        a.send(s2);
        awaitCounter(f.b(), "rcvd", 2);
        IbDevice dev = f.a();
        assertEquals(List.of(), f.removeA(), "the MAD layer destroys all it made");
        Done d1 = take(ra.dones);
        Done d2 = take(ra.dones);
        assertEquals(WcStatus.WR_FLUSH_ERR, d1.status());
        assertEquals(WcStatus.WR_FLUSH_ERR, d2.status());
        assertEquals(java.util.Set.of(s1, s2), java.util.Set.of(d1.send(), d2.send()));
        assertEquals(Errno.ENODEV, assertThrows(VerbsException.class,
                () -> a.send(sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, 1), 0, 0))).errno());
        assertEquals(Errno.ENODEV, assertThrows(VerbsException.class,
                () -> mad.registerAgent(dev, 1, QpType.GSI, null, ra)).errno());
        a.close(); // harmless
        // B is unaffected
        Recorder rb = new Recorder();
        MadAgent b = mad.registerAgent(f.b(), 1, QpType.GSI, null, rb);
        assertNotNull(b);
    }

    @Test
    void agentCloseFlushesAndStopsCallbacks() throws Exception {
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        MadSend s = sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, a.newTid()), 10_000, 0);
        a.send(s);
        a.close();
        // the flush callback ran before close returned
        Done d = ra.dones.poll();
        assertNotNull(d);
        assertEquals(WcStatus.WR_FLUSH_ERR, d.status());
        assertEquals(Errno.ENODEV, assertThrows(VerbsException.class, () -> a.send(s)).errno());
        Thread.sleep(50);
        assertTrue(ra.dones.isEmpty());
    }

    @Test
    void closeLeavesNoThread() throws Exception {
        Recorder ra = new Recorder();
        MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        MadSend s = sendTo(f.b(), request(UNCLAIMED, Mad.METHOD_SEND, a.newTid()), 10_000, 0);
        a.send(s);
        assertTrue(madThreads() > 0);
        mad.close();
        assertEquals(WcStatus.WR_FLUSH_ERR, take(ra.dones).status());
        assertEquals(0, madThreads(), "ib-mad threads after close");
        assertEquals(Errno.ENODEV, assertThrows(VerbsException.class,
                () -> mad.registerAgent(f.a(), 1, QpType.GSI, null, ra)).errno());
        // stop/start: a new layer works and is gone again after close
        mad = new MadLayer(f.core());
        Recorder rb = answering();
        MadAgent a2 = mad.registerAgent(f.a(), 1, QpType.GSI, null, ra);
        a2.send(sendTo(f.b(), request(VENDOR, Mad.METHOD_GET, a2.newTid()), 2000, 0));
        assertEquals(WcStatus.SUCCESS, take(ra.dones).status());
        assertEquals(1, rb.recvs.size());
        mad.close();
        assertEquals(0, madThreads());
    }

    static long madThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("ib-mad") && t.isAlive())
                .count();
    }

    // ------------------------------------------------------------------------------------------ raw UD

    /** The owner of the tests' bare UD QPs (here and in MadFuzzTest). */
    static final IbClient RAW = new IbClient() {
        public String name() {
            return "mad-test-raw";
        }

        public void add(IbDevice device) {
        }

        public void remove(IbDevice device, Object data) {
        }
    };

    /** Sends {@code len} bytes from an ordinary UD QP on {@code from} to QP1 of {@code to}. */
    void sendRaw(IbDevice from, IbDevice to, int len) throws Exception {
        ProtectionDomain pd = from.allocPd(RAW);
        CompletionQueue cq = from.createCq(RAW, new CqInitAttr().cqe(4));
        QueuePair qp = pd.createQp(new QpInitAttr().qpType(QpType.UD).cq(cq)
                .cap(new QpCap().maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(MadService.QP1_QKEY));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        ByteBuffer buf = ByteBuffer.allocateDirect(len);
        buf.put(0, (byte) 1).put(1, (byte) VENDOR).put(2, (byte) 1).put(3, (byte) Mad.METHOD_GET);
        MemoryRegion mr = pd.regMr(buf, Access.LOCAL_WRITE);
        AddressHandle ah = pd.createAh(f.avTo(to).portNum(1));
        qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(mr.iova(), len, mr.lkey())).ud(ah, 1, MadService.QP1_QKEY));
        WorkCompletion[] wc = {new WorkCompletion()};
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > end) {
                fail("raw UD send did not complete");
            }
            Thread.sleep(1);
        }
        assertEquals(WcStatus.SUCCESS, wc[0].status());
        qp.destroy();
        ah.destroy();
        mr.dereg();
        cq.destroy();
        pd.dealloc();
    }

}
