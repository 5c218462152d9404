package org.jrdma.ib.cm.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.loopback.standalone.LoopbackFabric;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.junit.jupiter.api.Test;

/** The exported stack as a ULP's test uses it: listen, connect, accept, both QPs in RTS, disconnect. */
class RdmaCmStackTest {
    /** The test's ULP: owns the PDs and CQs, and sees the device arrive before the CM is used. */
    static final class Ulp implements IbClient {
        final java.util.List<String> added = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "test";
        }

        @Override
        public void add(IbDevice d) {
            added.add(d.name());
        }

        @Override
        public void remove(IbDevice d, Object data) {
            added.remove(d.name());
        }
    }

    final Ulp ulp = new Ulp();
    final BlockingQueue<RdmaCmEvent> server = new LinkedBlockingQueue<>();
    final BlockingQueue<RdmaCmEvent> client = new LinkedBlockingQueue<>();

    @Test
    void twoPortsOfALoopbackDeviceConnectThroughTheCm() throws Exception {
        IbCore core = IbCore.newInstance();
        try (LoopbackFabric f = LoopbackFabric.open(core); RdmaCmStack cm = RdmaCmStack.open(core)) {
            core.registerClient(ulp);
            IbDevice lo0 = f.add("lo%d", 2);
            assertEquals(java.util.List.of("lo0"), ulp.added);
            cm.startSm(lo0, 1);
            RdmaCmId listener = cm.createId((id, ev) -> {
                server.add(ev);
                return 0;
            }, RdmaPortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(lo0.queryGid(2, 0).toInetAddress(), 7000));
            listener.listen(1);
            RdmaCmId c = cm.createId((id, ev) -> {
                client.add(ev);
                return 0;
            }, RdmaPortSpace.TCP);
            c.resolveAddr(new InetSocketAddress(lo0.queryGid(1, 0).toInetAddress(), 0), listener.localAddr(), 2000);
            next(client, RdmaCmEventType.ADDR_RESOLVED);
            c.resolveRoute(2000);
            next(client, RdmaCmEventType.ROUTE_RESOLVED);
            QueuePair cq = qp(c);
            c.connect(new RdmaConnParam().retryCount(7).rnrRetryCount(7).privateData(new byte[] { 42 }));
            RdmaCmEvent req = next(server, RdmaCmEventType.CONNECT_REQUEST);
            assertEquals(42, req.param().privateData()[0]);
            QueuePair sq = qp(req.id());
            req.id().accept(new RdmaConnParam().retryCount(7).rnrRetryCount(7));
            next(client, RdmaCmEventType.ESTABLISHED);
            next(server, RdmaCmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, cq.query().state());
            assertEquals(QpState.RTS, sq.query().state());
            assertEquals(sq.qpNum(), cq.query().destQpNum());
            assertEquals(1, c.portNum());
            assertEquals(2, req.id().portNum());
            c.disconnect(); // DREQ
            next(server, RdmaCmEventType.DISCONNECTED);
            req.id().disconnect(); // the passive side answers with DREP, as a Linux ULP's rdma_disconnect does
            next(client, RdmaCmEventType.DISCONNECTED);
            c.close();
            req.id().close();
            listener.close();
        }
    }

    QueuePair qp(RdmaCmId id) {
        ProtectionDomain pd = id.device().allocPd(ulp);
        return id.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(id.device().createCq(ulp, new CqInitAttr().cqe(4)))
                .cap(new QpCap().maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1)));
    }

    static RdmaCmEvent next(BlockingQueue<RdmaCmEvent> q, RdmaCmEventType type) throws InterruptedException {
        RdmaCmEvent ev = q.poll(20, TimeUnit.SECONDS);
        assertNotNull(ev, "no " + type);
        assertEquals(type, ev.type(), ev.toString());
        return ev;
    }
}
