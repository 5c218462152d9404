package org.jrdma.itest;

import static org.jrdma.itest.Waits.await;
import static org.jrdma.itest.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.common.service.ServiceAware;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * The RDMA CM as OSGi services in Felix: ib-mad and ib-cm bundles over two hw-rxe devices made through
 * ConfigurationAdmin on 127.X.Y.1 and .2. An RC connection through the {@link RdmaCm} service; stopping the
 * hw-rxe bundle gives DEVICE_REMOVAL to the connected ids (and not to a wildcard listener, which accepts
 * again once the devices are back); stopping ib-cm leaves no "rdma-cm" thread, stopping ib-mad no "ib-mad".
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
class RdmaCmFelixTest {
    static final String PID = "org.jrdma.hw.rxe";
    static final String A = "rxe_cm_a";
    static final String B = "rxe_cm_b";
    static final int PORT = 7471;
    static final IbClient OWNER = new IbClient() {
        @Override
        public String name() {
            return "rdma-cm-itest";
        }

        @Override
        public void add(IbDevice device) {
        }

        @Override
        public void remove(IbDevice device, Object clientData) {
        }
    };

    @InjectBundleContext
    BundleContext context;

    @InjectService(cardinality = 0)
    ServiceAware<IbCore> ibCore;

    @InjectService(cardinality = 0)
    ServiceAware<ConfigurationAdmin> configAdmin;

    @InjectService(cardinality = 0)
    ServiceAware<RdmaCm> rdmaCm;

    final List<Configuration> configs = new ArrayList<>();
    InetAddress addrA;
    InetAddress addrB;
    Bundle rxe;
    Bundle cmBundle;
    Bundle madBundle;
    final BlockingQueue<RdmaCmEvent> server = new LinkedBlockingQueue<>();
    final BlockingQueue<RdmaCmEvent> client = new LinkedBlockingQueue<>();
    /** The verbs resources of each id, released on DEVICE_REMOVAL (what a ULP does) or at the end. */
    final Map<RdmaCmId, Res> res = new ConcurrentHashMap<>();

    record Res(ProtectionDomain pd, CompletionQueue cq) {
        void release(RdmaCmId id) {
            id.destroyQp();
            cq.destroy();
            pd.dealloc();
        }
    }

    void qp(RdmaCmId id) {
        ProtectionDomain pd = id.device().allocPd(OWNER);
        CompletionQueue cq = id.device().createCq(OWNER, new CqInitAttr().cqe(8));
        id.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1)));
        res.put(id, new Res(pd, cq));
    }

    void release(RdmaCmId id) {
        Res r = res.remove(id);
        if (r != null) {
            r.release(id);
        }
    }

    @BeforeEach
    void devices() throws Exception {
        rxe = Frameworks.bundle(context, "hw-rxe");
        cmBundle = Frameworks.bundle(context, "ib-cm");
        madBundle = Frameworks.bundle(context, "ib-mad");
        for (Bundle b : List.of(rxe, madBundle, cmBundle)) {
            if (b.getState() != Bundle.ACTIVE) {
                b.start();
            }
        }
        InetAddress[] pair = RxeAddresses.pickFreePair();
        addrA = pair[0];
        addrB = pair[1];
        newDevice(A, addrA);
        newDevice(B, addrB);
        await("devices " + A + " and " + B, () -> device(A) != null && device(B) != null);
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Bundle b : List.of(rxe, madBundle, cmBundle)) {
            if (b.getState() != Bundle.ACTIVE) {
                b.start();
            }
        }
        for (Configuration c : configs) {
            try {
                c.delete();
            } catch (IllegalStateException e) {
                // gone
            }
        }
        await("no rxe device left", () -> core().devices().stream().noneMatch(d -> "rxe".equals(d.driverName())));
    }

    private void newDevice(String name, InetAddress addr) throws Exception {
        Configuration c = waitFor(configAdmin, "ConfigurationAdmin").getFactoryConfiguration(PID, name, "?");
        configs.add(c);
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("name", name);
        p.put("netdev", "lo");
        p.put("addr", addr.getHostAddress());
        c.update(p);
    }

    IbCore core() {
        return waitFor(ibCore, "IbCore");
    }

    IbDevice device(String name) {
        return core().device(name).orElse(null);
    }

    static RdmaCmEvent next(BlockingQueue<RdmaCmEvent> q, RdmaCmEventType want) throws InterruptedException {
        RdmaCmEvent e = q.poll(15, TimeUnit.SECONDS);
        assertNotNull(e, "no event, expected " + want);
        assertEquals(want, e.type(), "event " + e);
        return e;
    }

    static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive() && t.getName().equals(name));
    }

    /** A client id from A to B's listener: resolved, with a QP, connected; returns it once ESTABLISHED. */
    RdmaCmId connect(RdmaCm cm) throws Exception {
        RdmaCmId c = cm.createId((id, ev) -> {
            if (ev.type() == RdmaCmEventType.DEVICE_REMOVAL) {
                release(id);
            }
            client.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        c.resolveAddr(new InetSocketAddress(addrA, 0), new InetSocketAddress(addrB, PORT), 2000);
        next(client, RdmaCmEventType.ADDR_RESOLVED);
        c.resolveRoute(2000);
        next(client, RdmaCmEventType.ROUTE_RESOLVED);
        qp(c);
        c.connect(new RdmaConnParam().privateData("felix".getBytes()));
        next(client, RdmaCmEventType.ESTABLISHED);
        return c;
    }

    @Test
    void connectionThroughTheServiceSurvivesDriverRestartAndBundlesStopClean() throws Exception {
        RdmaCm cm = waitFor(rdmaCm, "RdmaCm");
        RdmaCmId listener = cm.createId((id, ev) -> {
            if (ev.type() == RdmaCmEventType.CONNECT_REQUEST) {
                qp(ev.id());
                ev.id().accept(new RdmaConnParam());
            } else if (ev.type() == RdmaCmEventType.DEVICE_REMOVAL) {
                release(id);
            }
            server.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        listener.bindAddr(new InetSocketAddress(PORT)); // wildcard: every device, present or future
        listener.listen(8);

        RdmaCmId c1 = connect(cm);
        RdmaCmEvent req = next(server, RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(listener, req.listenId());
        assertEquals(device(B), req.id().device());
        next(server, RdmaCmEventType.ESTABLISHED);

        // the driver goes: both connected ids hear DEVICE_REMOVAL and give their QPs back; the listener hears nothing
        rxe.stop();
        RdmaCmEvent rm = next(client, RdmaCmEventType.DEVICE_REMOVAL);
        assertEquals(c1, rm.id());
        RdmaCmEvent srm = next(server, RdmaCmEventType.DEVICE_REMOVAL);
        assertEquals(req.id(), srm.id());
        assertTrue(server.isEmpty(), "nothing for the wildcard listener: " + server);
        assertEquals(Map.of(), res, "every QP released");
        c1.close();
        req.id().close();

        // the driver comes back (the devices from their configurations): the listener accepts again
        rxe.start();
        await("devices back", () -> device(A) != null && device(B) != null);
        RdmaCmId c2 = null;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c2 == null) {
            try {
                c2 = connect(cm); // the CM agents of the new devices may take a moment
            } catch (AssertionError | RuntimeException e) {
                if (System.nanoTime() > end) {
                    throw e;
                }
                client.clear();
                Thread.sleep(100);
            }
        }
        RdmaCmEvent req2 = next(server, RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(listener, req2.listenId());
        next(server, RdmaCmEventType.ESTABLISHED);
        c2.disconnect();
        next(server, RdmaCmEventType.DISCONNECTED);
        req2.id().disconnect();
        next(client, RdmaCmEventType.DISCONNECTED);
        release(c2);
        release(req2.id());
        c2.close();
        req2.id().close();
        listener.close();

        assertTrue(threadAlive("rdma-cm"), "the CM's thread while ib-cm is active");
        assertTrue(threadAlive("ib-mad"), "the MAD layer's thread while ib-mad is active");
        cmBundle.stop();
        await("no rdma-cm thread after ib-cm stopped", () -> !threadAlive("rdma-cm"));
        // (the MAD service is a delayed component: with ib-cm gone nobody uses it, and SCR may already have
        // deactivated it)
        madBundle.stop();
        await("no ib-mad thread after ib-mad stopped", () -> !threadAlive("ib-mad"));
        if (!res.isEmpty()) {
            fail("resources left: " + res.keySet());
        }
    }
}
