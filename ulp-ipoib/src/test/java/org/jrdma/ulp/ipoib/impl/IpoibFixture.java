package org.jrdma.ulp.ipoib.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jrdma.ib.cm.impl.IbCmService;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.OperState;

/**
 * The managed loopback fabric of the tests (ib-mad's {@link ManagedIbFabric}: SM and SA on the first device) with the
 * ipoib client registered on its core, and what the tests wait for. Every wait has a generous timeout.
 */
final class IpoibFixture implements AutoCloseable {
    static final long WAIT_MS = 20_000;

    final ManagedIbFabric ib;
    final IpoibClient client;
    /** The IB CM of connected mode, or null. */
    final IbCmService ibCm;
    private final Map<String, BlockingQueue<byte[]>> received = new ConcurrentHashMap<>();
    private boolean registered;

    IpoibFixture(ManagedIbFabric ib) {
        this.ib = ib;
        this.ibCm = null;
        this.client = new IpoibClient(ib.sa());
    }

    /** With an IB CM on the fabric's core, so interfaces can go connected. */
    IpoibFixture(ManagedIbFabric ib, CmOptions cm) {
        this.ib = ib;
        this.ibCm = new IbCmService(ib.core(), ib.mad());
        this.client = new IpoibClient(ib.sa(), ibCm, cm, 128, 256);
    }

    IpoibFixture register() {
        ib.core().registerClient(client);
        registered = true;
        return this;
    }

    void unregister() {
        if (registered) {
            registered = false;
            ib.core().unregisterClient(client);
        }
    }

    /** The interface once its link is up and its IPv6 groups joined, with a receiver that keeps what arrives. */
    IpoibInterface up(String name) {
        await(() -> client.get(name).map(i -> i.state() == OperState.UP).orElse(false), name + " up");
        IpoibInterface i = client.get(name).orElseThrow();
        IpoibNetdev d = (IpoibNetdev) i;
        await(() -> d.mcast().attached(IpoibMgid.ipv6(Ipv6.ALL_NODES, d.pkey()))
                && d.mcast().attached(IpoibMgid.ipv6(Ipv6.solicitedNode(Ipv6.linkLocal(d.gid())), d.pkey())),
                name + " joined all-nodes and its link-local's solicited-node group (no join left in flight)");
        BlockingQueue<byte[]> q = new LinkedBlockingQueue<>();
        received.put(name, q);
        i.setReceiver((iface, p) -> {
            byte[] b = new byte[p.remaining()];
            p.get(b);
            q.add(b);
        });
        return i;
    }

    byte[] next(String name) throws InterruptedException {
        return received.get(name).poll(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** The next packet the receiver of {@code name} got, or null at once. */
    byte[] poll(String name) {
        return received.get(name).poll();
    }

    byte[] nextQuick(String name) throws InterruptedException {
        return received.get(name).poll(300, TimeUnit.MILLISECONDS);
    }

    static void await(BooleanSupplier cond, String what) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                assertTrue(cond.getAsBoolean(), "timed out waiting for: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    static long drops(IpoibInterface i, String why) {
        return i.stats().drops().getOrDefault(why, 0L);
    }

    /** What {@code rdma resource} lists for the ipoib client on {@code d}. */
    static List<ResourceInfo> owned(IbDevice d) {
        return d.resources().stream().filter(r -> IpoibClient.NAME.equals(r.owner())).toList();
    }

    static void assertNothingOwned(IbDevice d) {
        assertEquals(List.of(), owned(d), "ipoib resources left on " + d.name());
    }

    static ByteBuffer buf(byte[] b) {
        return ByteBuffer.wrap(b);
    }

    @Override
    public void close() {
        unregister();
        if (ibCm != null) {
            ibCm.close();
        }
    }
}
