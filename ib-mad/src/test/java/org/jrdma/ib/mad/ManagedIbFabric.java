package org.jrdma.ib.mad;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.SaClientImpl;
import org.jrdma.ib.mad.sm.SubnetManager;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A managed InfiniBand test fabric: hw-loopback devices on a {@link LoopbackFabric#managed()} subnet (ports
 * start in INIT with LID 0), the MAD layer on them, and on demand the subnet manager with its SA ({@link
 * #sweptBy}: ports ACTIVE with LIDs from 1, SM LID set) and an SA client ({@link #sa()}).
 *
 * <p>Use it as a JUnit 5 extension, closed after each test: <pre>{@code
 * @RegisterExtension final ManagedIbFabric ib = new ManagedIbFabric();
 * ...
 * IbDevice a = ib.add(1), b = ib.add(1);
 * SubnetManager sm = ib.sweptBy(a, 0);
 * }</pre> or as a plain {@link AutoCloseable}. Tests of other modules get it from ib-mad's test-jar; a test
 * that owns its {@link IbCore} and {@link MadLayer} lends them with {@link #ManagedIbFabric(IbCore, MadLayer,
 * String)}, and closes them itself.
 */
public final class ManagedIbFabric implements AutoCloseable, AfterEachCallback {
    private final IbCore core;
    private final MadLayer mad;
    private final boolean ownsMad;
    private final String namePattern;
    private final LoopbackFabric fabric = LoopbackFabric.managed();
    /** The devices still plugged in, in the order they were added. */
    private final Map<IbDevice, LoopbackDevice> devices = new LinkedHashMap<>();
    private SubnetManager sm;
    private SaClientImpl sa;
    private boolean closed;

    /** Its own core and MAD layer; devices named {@code lo%d}. */
    public ManagedIbFabric() {
        this(IbCore.newInstance(), null, "lo%d");
    }

    /**
     * On a core and MAD layer the test owns ({@code mad} null: one of its own, closed with the fabric);
     * devices named by {@code namePattern} ({@code ibcm%d}).
     */
    public ManagedIbFabric(IbCore core, MadLayer mad, String namePattern) {
        this.core = core;
        this.ownsMad = mad == null;
        this.mad = mad == null ? new MadLayer(core) : mad;
        this.namePattern = namePattern;
    }

    public IbCore core() {
        return core;
    }

    public MadLayer mad() {
        return mad;
    }

    public LoopbackFabric fabric() {
        return fabric;
    }

    /** A device of {@code ports} ports plugged into the fabric and registered with the core. */
    public IbDevice add(int ports) {
        LoopbackDevice lo = new LoopbackDevice(fabric, namePattern, ports, 0);
        IbDevice d = lo.register(core.registrar()).device();
        devices.put(d, lo);
        return d;
    }

    /** The devices plugged in, in the order they were added. */
    public List<IbDevice> devices() {
        return new ArrayList<>(devices.keySet());
    }

    public IbDevice device(int i) {
        return devices().get(i);
    }

    /** The hw-loopback device behind {@code d} (its links, for directed routes). */
    public LoopbackDevice loopback(IbDevice d) {
        return devices.get(d);
    }

    /** Hot-unplugs {@code d}: unregistered from the core, detached from the fabric. */
    public void unplug(IbDevice d) {
        LoopbackDevice lo = devices.remove(d);
        if (lo != null) {
            lo.close();
        }
    }

    /**
     * Starts the SM (and its SA) on port 1 of {@code d} and lets it sweep once, as opensm with {@code
     * sweep_interval 0}: when this returns, every port is ACTIVE with its LID and the SM LID set.
     */
    public SubnetManager sweptBy(IbDevice d, int priority) throws InterruptedException {
        startSm(d, priority, 0).sweepNow();
        return sm;
    }

    /** Starts the SM on port 1 of {@code d}, sweeping now and then every {@code sweepMs} (0: once). */
    public SubnetManager startSm(IbDevice d, int priority, long sweepMs) {
        if (sm != null) {
            throw new IllegalStateException("an SM runs already: " + sm);
        }
        sm = new SubnetManager(mad, d, 1, LoopbackFabric.LINK_LID_BASE, priority).start(sweepMs);
        return sm;
    }

    /** The running SM, or null. */
    public SubnetManager sm() {
        return sm;
    }

    /** Stops the SM and its SA (the ports keep their LIDs and states). */
    public void stopSm() {
        if (sm != null) {
            sm.close();
            sm = null;
        }
    }

    /** The SA client on the fabric's MAD layer (made on first use, closed with the fabric). */
    public SaClientImpl sa() {
        if (sa == null) {
            sa = new SaClientImpl(mad);
        }
        return sa;
    }

    /** Waits (up to {@code timeoutMs}) until the port is ACTIVE; returns its state then. */
    public static PortState awaitActive(IbDevice d, int port, long timeoutMs) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (d.queryPort(port).state() != PortState.ACTIVE && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        return d.queryPort(port).state();
    }

    /** The SA client, the SM, the MAD layer (if its own) and every device still plugged in. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (sa != null) {
            sa.close();
        }
        stopSm();
        if (ownsMad) {
            mad.close();
        }
        for (LoopbackDevice lo : devices.values()) {
            lo.close();
        }
        devices.clear();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }
}
