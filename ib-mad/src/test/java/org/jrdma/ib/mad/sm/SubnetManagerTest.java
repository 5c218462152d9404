package org.jrdma.ib.mad.sm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.PortModify;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ib.mad.impl.MadLayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SMA and the SM on a managed hw-loopback fabric (ports start at LID 0, INIT). */
class SubnetManagerTest {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    final MadLayer mad = ib.mad();
    SubnetManager sm;

    IbDevice add(int ports) {
        return ib.add(ports);
    }

    /** A directed-route SMP of one hop from {@code from}/1 to the port on {@code link}. */
    static Mad drGet(MadAgent a, int attr, long mod) {
        Mad m = new Mad().baseVersion(1).mgmtClass(Mad.CLASS_SUBN_DIRECTED_ROUTE).classVersion(1)
                .method(Mad.METHOD_GET).tid(a.newTid()).attrId(attr).attrMod(mod);
        m.u8(7, 1).u16(32, 0xffff).u16(34, 0xffff).u8(129, a.port());
        return m;
    }

    static final class Answers implements MadHandler {
        final BlockingQueue<MadRecv> q = new LinkedBlockingQueue<>();

        @Override
        public void recv(MadAgent agent, MadRecv recv) {
            q.add(recv);
        }
    }

    static Mad ask(MadAgent a, Answers r, Mad req, int dlid) throws InterruptedException {
        a.send(new MadSend(req).ah(new AhAttr().dlid(dlid)).remoteQpn(0).remoteQkey(0).timeoutMs(2000));
        MadRecv got = r.q.poll(5, TimeUnit.SECONDS);
        assertTrue(got != null, "no answer to " + req);
        return got.mad();
    }

    @Test
    void smaAnswersIbtaLayoutsOverOneDirectedHop() throws Exception {
        IbDevice a = add(1);
        IbDevice b = add(2);
        Answers r = new Answers();
        MadAgent agent = mad.registerAgent(a, 1, QpType.SMI, null, r);
        int linkB2 = LoopbackFabric.LINK_LID_BASE + ib.loopback(b).linkOf(2);

        Mad ni = ask(agent, r, drGet(agent, 0x0011, 0), linkB2);
        assertEquals(Mad.METHOD_GET_RESP, ni.method());
        assertEquals(0x8000, ni.status(), "D bit, status 0");
        assertEquals(0, ni.u8(6), "hop pointer: 1 on the wire back, 0 once the receiving SMI ran (C14-13:3)");
        assertEquals(2, ni.u8(192 + 1), "return path[1]: the port it arrived on");
        byte[] expect = new byte[40];
        long guid = b.nodeGuid();
        java.nio.ByteBuffer e = java.nio.ByteBuffer.wrap(expect);
        e.put((byte) 1).put((byte) 1).put((byte) 1).put((byte) 2).putLong(guid).putLong(guid).putLong(guid + 2)
                .putShort((short) 1).putShort((short) 1).putInt(1).put((byte) 2).put((byte) 0x6a).putShort((short) 0x7264);
        assertArrayEquals(expect, java.util.Arrays.copyOfRange(ni.bytes(), 64, 104), "NodeInfo");

        Mad pi = ask(agent, r, drGet(agent, 0x0015, 0), linkB2);
        byte[] p = java.util.Arrays.copyOfRange(pi.bytes(), 64, 128);
        java.nio.ByteBuffer pb = java.nio.ByteBuffer.wrap(p);
        assertEquals(0xfe80000000000000L, pb.getLong(8), "GidPrefix");
        assertEquals(0, pb.getShort(16), "LID before an SM");
        assertEquals(0x02010000, pb.getInt(20), "CapabilityMask");
        assertEquals(2, p[28], "LocalPortNum");
        assertEquals(0x72, p[32] & 0xff, "LinkSpeedSupported 7, PortState INIT");
        assertEquals(0x52, p[33] & 0xff, "PortPhysicalState LinkUp, LinkDownDefault Polling");
        assertEquals(0x50, p[36] & 0xff, "NeighborMTU 4096, MasterSMSL 0");
        assertEquals(5, p[41] & 0xf, "MTUCap 4096");

        Mad nd = ask(agent, r, drGet(agent, 0x0010, 0), linkB2);
        String desc = new String(nd.bytes(), 64, 64, java.nio.charset.StandardCharsets.US_ASCII).trim();
        assertTrue(desc.endsWith(" " + b.name()), desc);

        Mad gi = ask(agent, r, drGet(agent, 0x0014, 0), linkB2);
        assertEquals(guid + 2, gi.u64(64));
        Mad pk = ask(agent, r, drGet(agent, 0x0016, 0), linkB2);
        assertEquals(0xffff, pk.u16(64));
        assertEquals(0, pk.u16(66));

        long errors = mad.counters(b, 2).get("sma_errors");
        Mad bad = ask(agent, r, drGet(agent, 0xff10, 0), linkB2);
        assertEquals(0x8000 | Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB, bad.status());
        Mad badBlock = ask(agent, r, drGet(agent, 0x0014, 5), linkB2);
        assertEquals(0x8000 | Mad.STATUS_INVALID_ATTRIB_VALUE, badBlock.status());
        assertEquals(errors + 2, mad.counters(b, 2).get("sma_errors"));

        // a DR SMP whose initial path does not leave by the sending port is refused by the SMI
        Mad wrong = drGet(agent, 0x0011, 0);
        wrong.u8(129, 9);
        assertEquals(org.jrdma.ib.core.Errno.EINVAL, org.junit.jupiter.api.Assertions.assertThrows(
                org.jrdma.ib.core.VerbsException.class, () -> agent.send(new MadSend(wrong)
                        .ah(new AhAttr().dlid(linkB2)).remoteQpn(0).remoteQkey(0))).errno());
        assertEquals(1, mad.counters(a, 1).get("dropped_smi"));
    }

    @Test
    void sweepAssignsDistinctLidsAndBringsEveryPortActive() throws Exception {
        IbDevice a = add(1);
        IbDevice b = add(2);
        IbDevice c = add(1);
        List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        b.registerEventHandler(events::add);
        assertEquals(PortState.INIT, b.queryPort(1).state());
        assertEquals(0, b.queryPort(1).lid());

        sm = ib.sweptBy(a, 0);
        Set<Integer> lids = new HashSet<>();
        for (IbDevice d : List.of(a, b, c)) {
            for (int p = 1; p <= d.physPortCnt(); p++) {
                PortAttr pa = d.queryPort(p);
                assertEquals(PortState.ACTIVE, pa.state(), d.name() + "/" + p);
                assertTrue(pa.lid() > 0 && lids.add(pa.lid()), "distinct LID " + pa.lid());
                assertEquals(sm.smLid(), pa.smLid(), d.name() + "/" + p + " SM LID");
            }
        }
        assertEquals(1, sm.smLid(), "the SM's port gets the first LID");
        assertEquals(a.queryPort(1).lid(), sm.smLid());
        assertEquals(4, sm.ports().size());
        assertTrue((a.queryPort(1).portCapFlags() & PortModify.CAP_IS_SM) != 0, "IsSM on the SM's port");
        List<EventType> port1 = events.stream().filter(ev -> ev.portNum() == 1).map(AsyncEvent::type).toList();
        assertTrue(port1.contains(EventType.LID_CHANGE) && port1.contains(EventType.PORT_ACTIVE)
                && port1.contains(EventType.SM_CHANGE), port1.toString());

        // a second sweep changes nothing
        int before = b.queryPort(2).lid();
        int n = events.size();
        sm.sweepNow();
        assertEquals(before, b.queryPort(2).lid());
        assertEquals(n, events.size(), "no events from a sweep that changes nothing");

        // LID-routed SMPs now reach the ports by their LIDs
        Answers r = new Answers();
        MadAgent agent = mad.registerAgent(c, 1, QpType.SMI, null, r);
        Mad req = new Mad().baseVersion(1).mgmtClass(Mad.CLASS_SUBN_LID_ROUTED).classVersion(1)
                .method(Mad.METHOD_GET).tid(agent.newTid()).attrId(0x0020);
        Mad smInfo = ask(agent, r, req, sm.smLid());
        assertEquals(0, smInfo.status());
        assertEquals(sm.smGuid(), smInfo.u64(64));
        assertEquals(SubnetManager.SMINFO_MASTER, smInfo.u8(64 + 20) & 0xf);
    }

    @Test
    void hotPluggedDeviceIsPickedUpByTheNextSweep() throws Exception {
        IbDevice a = add(1);
        IbDevice b = add(1);
        sm = ib.startSm(a, 0, 100);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sm.sweeps() < 1 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(2, sm.ports().size());
        IbDevice late = add(1);
        assertEquals(PortState.ACTIVE, ManagedIbFabric.awaitActive(late, 1, 10_000));
        assertEquals(3, late.queryPort(1).lid());
        assertEquals(sm.smLid(), late.queryPort(1).smLid());
        // and a vanished one is forgotten
        ib.unplug(b);
        long s = sm.sweeps();
        while (sm.sweeps() < s + 2 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(2, sm.ports().size());
        assertNotEquals(0, sm.activityCount());
    }

    @Test
    void closeLeavesNoSmThread() throws Exception {
        IbDevice a = add(1);
        add(1);
        sm = ib.startSm(a, 0, 50);
        Thread.sleep(200);
        ib.stopSm();
        mad.close();
        long smThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && (t.getName().equals("ib-sm") || t.getName().equals("ib-mad"))).count();
        assertEquals(0, smThreads);
        assertEquals(0, a.queryPort(1).portCapFlags() & PortModify.CAP_IS_SM, "IsSM cleared");
    }
}
