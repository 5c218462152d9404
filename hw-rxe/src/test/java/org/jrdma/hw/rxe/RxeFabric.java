package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.WorkCompletion;

/** Two RxeDevices (127.0.0.1 and 127.0.0.2) on an InMemoryWire, registered with a fresh IbCore. */
final class RxeFabric implements AutoCloseable {
    static {
        LeakCheck.install();
    }

    static final int ALL_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;

    final IbCore core = IbCore.newInstance();
    final InMemoryWire wire;
    final RxeDevice ra;
    final RxeDevice rb;
    final IbDevice a;
    final IbDevice b;
    final IbClient ulp = new IbClient() {
        public String name() {
            return "rxe-test";
        }

        public void add(IbDevice device) {
        }

        public void remove(IbDevice device, Object data) {
        }
    };

    RxeFabric(long seed, int netdevMtu) throws Exception {
        this(seed, netdevMtu, "127.0.0.1", "127.0.0.2");
    }

    /** The two devices on the given addresses (IPv4 or IPv6). */
    RxeFabric(long seed, int netdevMtu, String addrA, String addrB) throws Exception {
        wire = new InMemoryWire(seed);
        ra = new RxeDevice("rxe%d", List.of(InetAddress.getByName(addrA)), netdevMtu, 0x02_00_00_00_00_01L, wire);
        rb = new RxeDevice("rxe%d", List.of(InetAddress.getByName(addrB)), netdevMtu, 0x02_00_00_00_00_02L, wire);
        wire.attach(ra);
        wire.attach(rb);
        a = ra.register(core.registrar()).device();
        b = rb.register(core.registrar()).device();
        core.registerClient(ulp);
    }

    /** A PD, a CQ, a QP and one registered buffer on {@code dev}. */
    final class Side {
        final IbDevice dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf;
        final MemoryRegion mr;
        private final WorkCompletion[] wc = {new WorkCompletion()};

        Side(IbDevice dev, QpType type, int depth, int bufBytes, int access) {
            this.dev = dev;
            pd = dev.allocPd(ulp);
            cq = dev.createCq(ulp, new CqInitAttr().cqe(4 * depth + 16));
            qp = pd.createQp(new QpInitAttr().qpType(type).cq(cq)
                    .cap(new QpCap().maxSendWr(depth).maxRecvWr(depth).maxSendSge(2).maxRecvSge(2).maxInlineData(64)));
            buf = ByteBuffer.allocateDirect(bufBytes);
            mr = pd.regMr(buf, access);
            sides.add(this);
        }

        /** Destroys what this side created (address handles the test made are reaped with the PD). */
        void destroy() {
            qp.destroy();
            mr.dereg();
            cq.destroy();
        }

        Gid gid() {
            return dev.queryGid(1, 0);
        }

        /** The next completion, or an AssertionError after {@code ms}. */
        WorkCompletion next(long ms) {
            long end = System.nanoTime() + ms * 1_000_000L;
            while (System.nanoTime() - end < 0) {
                if (cq.poll(wc) == 1) {
                    return new WorkCompletion().copyFrom(wc[0]);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(20_000); // 2 cores: never spin against the engines
            }
            throw new AssertionError("no completion on " + dev.name() + " within " + ms + " ms; counters a: "
                    + ra.counters() + " | b: " + rb.counters());
        }

        /** Null if no completion arrives within {@code ms}. */
        WorkCompletion poll(long ms) throws InterruptedException {
            long end = System.nanoTime() + ms * 1_000_000L;
            while (System.nanoTime() - end < 0) {
                if (cq.poll(wc) == 1) {
                    return new WorkCompletion().copyFrom(wc[0]);
                }
                Thread.sleep(1);
            }
            return null;
        }
    }

    Side side(IbDevice dev, QpType type, int depth, int bufBytes) {
        return new Side(dev, type, depth, bufBytes, ALL_ACCESS);
    }

    /** Connection parameters. */
    static final class Conn {
        int timeout = 14; // 67 ms, as perftest
        int retryCnt = 7;
        int rnrRetry = 7;
        int minRnrTimer = 1; // 10 us
        int psn = 0xfffff0; // wraps during the tests
        int rdAtomic = 16;
    }

    /** INIT -> RTR -> RTS of {@code x} towards {@code y}. */
    static void connect(Side x, Side y, Conn c) {
        QueuePair qp = x.qp;
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(ALL_ACCESS));
        qp.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(1).grh(y.gid(), 0))
                .pathMtu(x.dev.queryPort(1).activeMtu()).destQpNum(y.qp.qpNum()).rqPsn(c.psn)
                .maxDestRdAtomic(c.rdAtomic).minRnrTimer(c.minRnrTimer));
        qp.modify(new QpAttr().state(QpState.RTS).timeout(c.timeout).retryCnt(c.retryCnt).rnrRetry(c.rnrRetry)
                .sqPsn(c.psn).maxRdAtomic(c.rdAtomic));
        assertEquals(QpState.RTS, qp.state());
    }

    static void connectBoth(Side x, Side y, Conn c) {
        connect(x, y, c);
        connect(y, x, c);
    }

    private final java.util.List<Side> sides = new java.util.ArrayList<>();
    private final java.util.List<org.jrdma.ib.core.AddressHandle> ahs = new java.util.ArrayList<>();

    /** An address handle the fabric destroys at close. */
    org.jrdma.ib.core.AddressHandle ah(Side s, AhAttr attr) {
        org.jrdma.ib.core.AddressHandle ah = s.pd.createAh(attr);
        ahs.add(ah);
        return ah;
    }

    @Override
    public void close() throws Exception {
        // destroy in order, so unregistration has nothing to reap (and logs no warnings)
        try {
            ahs.forEach(org.jrdma.ib.core.AddressHandle::destroy);
            sides.forEach(Side::destroy);
            sides.forEach(s -> s.pd.dealloc());
        } catch (RuntimeException e) {
            // a test that failed half-way: unregistration reaps the rest
        }
        ra.close();
        rb.close();
        wire.close();
    }
}
