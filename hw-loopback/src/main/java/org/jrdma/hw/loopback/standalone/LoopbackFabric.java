package org.jrdma.hw.loopback.standalone;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.spi.UnregisterReport;

/**
 * Loopback devices outside OSGi, as {@code rdma link add}/{@code modprobe} would make them in the container:
 * <pre>{@code
 * IbCore core = IbCore.newInstance();
 * try (LoopbackFabric fabric = LoopbackFabric.open(core)) {
 *     IbDevice lo0 = fabric.add("lo%d", 2);   // two ports, ACTIVE, LIDs 1 and 2, GID[0] fe80::<port GUID>
 *     ...
 * }
 * }</pre>
 * The fabric is private to this object (its own switch, LIDs from 1), so tests in one JVM do not see each
 * other's ports. Ports come up ACTIVE with their LIDs as if an SM had run; InfiniBand services that ask the
 * SA (the RDMA CM's route resolution) also need a subnet manager on one port (ib-cm's
 * {@code org.jrdma.ib.cm.standalone.RdmaCmStack#startSm}).
 */
public final class LoopbackFabric implements AutoCloseable {
    private final IbCore core;
    private final org.jrdma.hw.loopback.LoopbackFabric fabric = new org.jrdma.hw.loopback.LoopbackFabric();
    /** The devices still plugged in, in the order they were added. */
    private final Map<IbDevice, LoopbackDevice> devices = new LinkedHashMap<>();
    private boolean closed;

    private LoopbackFabric(IbCore core) {
        this.core = core;
    }

    /** A new, empty fabric whose devices register with {@code core}. */
    public static LoopbackFabric open(IbCore core) {
        if (core == null) {
            throw new IllegalArgumentException("hw-loopback: core is null");
        }
        return new LoopbackFabric(core);
    }

    /**
     * Plugs in a device of {@code ports} ports (1..16) named {@code name} ({@code "lo%d"}: the lowest free
     * number, as Linux names devices) and registers it: every client gets {@code add} before this returns.
     */
    public synchronized IbDevice add(String name, int ports) {
        if (closed) {
            throw new IllegalStateException("hw-loopback: fabric closed");
        }
        if (ports < 1 || ports > 16) {
            throw new IllegalArgumentException("hw-loopback: ports must be 1..16, not " + ports);
        }
        LoopbackDevice lo = new LoopbackDevice(fabric, name, ports, 0);
        IbDevice d = lo.register(core.registrar()).device();
        devices.put(d, lo);
        return d;
    }

    /** The devices plugged in, in the order they were added. */
    public synchronized List<IbDevice> devices() {
        return new ArrayList<>(devices.keySet());
    }

    /**
     * Hot-unplugs {@code device}: clients get {@code remove}, outstanding work flushes, the ports leave the
     * fabric. Returns what the core reports (clients removed, resources they left), or null if not ours.
     */
    public UnregisterReport remove(IbDevice device) {
        LoopbackDevice lo;
        synchronized (this) {
            lo = devices.remove(device);
        }
        return lo == null ? null : lo.close();
    }

    /** Unplugs every device, the last added first. */
    @Override
    public void close() {
        List<IbDevice> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(devices.keySet());
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            remove(all.get(i));
        }
    }
}
