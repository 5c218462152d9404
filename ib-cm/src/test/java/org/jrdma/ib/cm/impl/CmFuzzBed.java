package org.jrdma.ib.cm.impl;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.mad.impl.MadLayer;

/**
 * What {@link CmFuzzTest} feeds: an {@link RdmaCmService} on two hw-rxe devices (.1, .2 of 127.61.7.0/24) with
 * live state for the fuzzed messages to hit: a listener on .2:7174 (it accepts the bed's own connection and
 * rejects every other request, as a server at its limit would), one established connection from .1 to it (both
 * ends in the service), and one REQ from .1 to a {@link CmInjector} on .3 that never answers (REQ_SENT). After
 * the fuzz moved or broke them, {@link #heal} puts them back. Retransmissions are shortened (300 ms, 2 retries)
 * so that ids whose peer is gone time out quickly instead of piling up.
 */
final class CmFuzzBed implements AutoCloseable {
    static final String NET = "127.61.7.";
    /** rping's port: the listener's. */
    static final int PORT = 7174;
    /** Where the never-answered REQ goes (the injector has no listener). */
    static final int SILENT_PORT = 7300;

    final IbCore core = IbCore.newInstance();
    final RxeNetDevice ra;
    final RxeNetDevice rb;
    final MadLayer mad;
    final RdmaCmService cm;
    final IbCmService ib;
    final CmInjector inj;
    final InetAddress server;
    final RdmaCmId listener;
    /** The last event of each id the bed made or was given (children of the listener too). */
    private final Map<RdmaCmId, RdmaCmEventType> last = new ConcurrentHashMap<>();
    private final Map<RdmaCmId, Verbs> verbs = new ConcurrentHashMap<>();
    private volatile boolean acceptNext;
    private RdmaCmId client;
    private RdmaCmId accepted;
    private RdmaCmId silent;
    int heals;

    CmFuzzBed() throws Exception {
        ra = RxeNetDevice.open(core.registrar(), "cfa%d", "lo", NET + "1", 0, NettyWire.Transport.AUTO);
        rb = RxeNetDevice.open(core.registrar(), "cfb%d", "lo", NET + "2", 0, NettyWire.Transport.AUTO);
        mad = new MadLayer(core);
        cm = new RdmaCmService(core, mad);
        ib = cm.ownIbCm();
        ib.madTimeoutMs = 300;
        ib.madRetries = 2;
        inj = new CmInjector(NET + "3");
        server = InetAddress.getByName(NET + "2");
        listener = cm.createId(this::serverEvent, RdmaPortSpace.TCP);
        listener.bindAddr(new InetSocketAddress(server, PORT));
        listener.listen(8);
        heal();
    }

    /** The listener's handler (its children's too): the bed's own request is accepted, any other rejected. */
    private int serverEvent(RdmaCmId id, RdmaCmEvent ev) {
        last.put(ev.id(), ev.type());
        if (ev.type() != RdmaCmEventType.CONNECT_REQUEST) {
            return 0;
        }
        if (!acceptNext) {
            return 1; // destroys the new id: a REJ (consumer defined)
        }
        acceptNext = false;
        qp(ev.id());
        ev.id().accept(new RdmaConnParam());
        accepted = ev.id();
        return 0;
    }

    private int clientEvent(RdmaCmId id, RdmaCmEvent ev) {
        last.put(id, ev.type());
        return 0;
    }

    /** Waits until both threads have delivered what is queued (twice: an IB CM event queues an RDMA CM one). */
    void settle() {
        for (int i = 0; i < 2; i++) {
            ib.drainEvents();
            cm.events.drain();
        }
        inj.got.clear(); // the answers sent to the injector (REJ, DREP, MRA, SIDR_REP, the silent REQ)
    }

    /** Puts back the established connection and the REQ waiting for an answer if the fuzz ended them. */
    void heal() throws Exception {
        if (client == null || last.get(client) != RdmaCmEventType.ESTABLISHED || accepted == null
                || last.get(accepted) != RdmaCmEventType.ESTABLISHED) {
            drop(client);
            drop(accepted);
            accepted = null;
            client = resolved(server, PORT);
            acceptNext = true;
            client.connect(new RdmaConnParam());
            await(() -> accepted != null && last.get(accepted) == RdmaCmEventType.ESTABLISHED
                    && last.get(client) == RdmaCmEventType.ESTABLISHED, "the bed's connection");
            heals++;
        }
        if (silent == null || last.get(silent) != RdmaCmEventType.ROUTE_RESOLVED) {
            drop(silent);
            silent = resolved(inj.addr, SILENT_PORT);
            silent.connect(new RdmaConnParam());
            await(() -> live().stream().anyMatch(c -> c.state == org.jrdma.ib.cm.ib.IbCmState.REQ_SENT),
                    "the silent REQ");
            heals++;
        }
    }

    private void drop(RdmaCmId id) {
        if (id != null) {
            id.destroyQp();
            id.close();
            last.remove(id);
            Verbs v = verbs.remove(id);
            if (v != null) {
                v.cq.destroy();
                v.pd.dealloc();
            }
        }
    }

    /** What an id's QP needs besides itself, released with it. */
    private record Verbs(ProtectionDomain pd, CompletionQueue cq) {
    }

    /** An RC QP for {@code id} on a PD and CQ of its own. */
    private void qp(RdmaCmId id) {
        ProtectionDomain pd = id.device().allocPd(RdmaCmInjectTest.OWNER);
        CompletionQueue cq = id.device().createCq(RdmaCmInjectTest.OWNER, new CqInitAttr().cqe(8));
        verbs.put(id, new Verbs(pd, cq));
        id.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1)));
    }

    /** A TCP id on .1 with an RC QP and a route to {@code to}:{@code port}. */
    private RdmaCmId resolved(InetAddress to, int port) throws Exception {
        RdmaCmId c = cm.createId(this::clientEvent, RdmaPortSpace.TCP);
        c.resolveAddr(new InetSocketAddress(InetAddress.getByName(NET + "1"), 0), new InetSocketAddress(to, port), 2000);
        await(() -> last.get(c) == RdmaCmEventType.ADDR_RESOLVED, "ADDR_RESOLVED");
        c.resolveRoute(2000);
        await(() -> last.get(c) == RdmaCmEventType.ROUTE_RESOLVED, "ROUTE_RESOLVED");
        qp(c);
        return c;
    }

    private static void await(java.util.function.BooleanSupplier done, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("the fuzz bed could not set up " + what);
            }
            Thread.sleep(1);
        }
    }

    /**
     * PDs, CQs and QPs on the two devices: the bed's, the MAD layer's. Not AHs: each MAD sent has one until its
     * send completes, so their number moves with the answers in flight.
     */
    int resources() {
        return (int) java.util.stream.Stream.of(ra, rb).flatMap(d -> d.ibDevice().resources().stream())
                .filter(r -> r.type() != org.jrdma.ib.core.ResourceType.AH).count();
    }

    /** MADs the MAD layer received on the bed's two devices (all CM MADs on RoCE): the bed's own traffic. */
    long wireRcvd() {
        return mad.counters(ra.ibDevice(), 1).getOrDefault("rcvd", 0L) + mad.counters(rb.ibDevice(), 1).getOrDefault("rcvd", 0L);
    }

    /** The live comm IDs' ids (the fuzz aims at them), in a stable order. */
    List<CmId> live() {
        synchronized (ib.lock) {
            List<CmId> l = new ArrayList<>(ib.byCommId.values());
            l.sort(Comparator.comparingInt((CmId c) -> c.state.ordinal()).thenComparingInt(c -> c.localCommId));
            return l;
        }
    }

    /** The RoCEv2 GID of a bed device (IPv4-mapped). */
    Gid gid(IbDevice dev) {
        return Gid.of(addr(dev == ra.ibDevice() ? 1 : 2));
    }

    static InetAddress addr(int host) {
        try {
            return InetAddress.getByName(NET + host);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        cm.close();
        mad.close();
        ra.close();
        rb.close();
        inj.close();
    }
}
