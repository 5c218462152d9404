package org.jrdma.ib.mad.standalone;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.SaClientImpl;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ib.mad.sm.SubnetManager;

/**
 * ib_mad, ib_sa and (on demand) opensm on a core the caller owns: the MAD layer registers as a client of
 * {@code core} (QP0/QP1 on every device, present and future), the SA client asks the SA of each port's
 * subnet, and {@link #startSm} runs a subnet manager and its SA on one port, as the container's
 * {@code org.jrdma.ib.sm} configuration does.
 */
public final class MadStack implements AutoCloseable {
    /** hw-loopback's directed-route link LIDs (its {@code LINK_LID_BASE}), as the container's SM uses. */
    private static final int LINK_LID_BASE = 0xc000;

    private final MadLayer layer;
    private final SaClientImpl sa;
    private SubnetManager sm;
    private boolean closed;

    private MadStack(IbCore core) {
        this.layer = new MadLayer(core);
        this.sa = new SaClientImpl(layer);
    }

    /** The MAD layer and the SA client on {@code core}. */
    public static MadStack open(IbCore core) {
        if (core == null) {
            throw new IllegalArgumentException("ib-mad: core is null");
        }
        return new MadStack(core);
    }

    /** The MAD service ({@code ib_register_mad_agent}, {@code ib_post_send_mad}). */
    public MadService mad() {
        return layer;
    }

    /** The SA client ({@code ib_sa_path_rec_get}, multicast joins). */
    public SaClient sa() {
        return sa;
    }

    /**
     * Starts the subnet manager (and its SA) on {@code port} of {@code device} and sweeps once before
     * returning: every port of the subnet is then ACTIVE with its LID and knows the SM LID, and PathRecord
     * queries are answered. Later sweeps only on {@link #sweep()} (a device added afterwards needs one).
     */
    public synchronized void startSm(IbDevice device, int port) throws InterruptedException {
        if (closed) {
            throw new IllegalStateException("ib-mad: closed");
        }
        if (sm != null) {
            throw new IllegalStateException("ib-mad: an SM runs already on " + sm.device().name() + "/" + sm.port());
        }
        if (port < 1 || port > device.physPortCnt() || device.linkLayer(port) != LinkLayer.INFINIBAND) {
            throw new IllegalArgumentException("ib-mad: " + device.name() + " has no InfiniBand port " + port);
        }
        sm = new SubnetManager(layer, device, port, LINK_LID_BASE, 0).start(0);
        sm.sweepNow();
    }

    /** One more sweep of the running SM (new ports get LIDs, the SA learns them). */
    public void sweep() throws InterruptedException {
        SubnetManager s;
        synchronized (this) {
            s = sm;
        }
        if (s == null) {
            throw new IllegalStateException("ib-mad: no SM runs");
        }
        s.sweepNow();
    }

    /** The SA client, the SM and the MAD layer (its QP0/QP1 on every device). */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        sa.close();
        if (sm != null) {
            sm.close();
        }
        layer.close();
    }
}
