package org.jrdma.ib.cm.standalone;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.impl.RdmaCmService;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.standalone.MadStack;

/**
 * ib_mad, ib_sa, ib_cm and rdma_cm on a core the caller owns, for a ULP tested or embedded outside OSGi:
 * <pre>{@code
 * IbCore core = IbCore.newInstance();
 * try (LoopbackFabric fabric = LoopbackFabric.open(core); RdmaCmStack cm = RdmaCmStack.open(core)) {
 *     IbDevice lo0 = fabric.add("lo%d", 2);
 *     cm.startSm(lo0, 1);                    // InfiniBand routes come from the SA
 *     RdmaCmId id = cm.createId(handler, RdmaPortSpace.TCP);
 *     ...
 * }
 * }</pre>
 * RoCE devices (hw-rxe) need no SM: their routes come from the GID tables.
 */
public final class RdmaCmStack implements RdmaCm, AutoCloseable {
    private final MadStack mad;
    private final RdmaCmService cm;

    private RdmaCmStack(IbCore core) {
        this.mad = MadStack.open(core);
        this.cm = new RdmaCmService(core, mad.mad(), mad.sa());
    }

    /** The whole stack on {@code core}, for its present and future devices. */
    public static RdmaCmStack open(IbCore core) {
        if (core == null) {
            throw new IllegalArgumentException("ib-cm: core is null");
        }
        return new RdmaCmStack(core);
    }

    @Override
    public RdmaCmId createId(RdmaCmEventHandler handler, RdmaPortSpace ps) {
        return cm.createId(handler, ps);
    }

    /** Runs opensm on {@code port} of {@code device} and sweeps once (see {@link MadStack#startSm}). */
    public void startSm(IbDevice device, int port) throws InterruptedException {
        mad.startSm(device, port);
    }

    /** The MAD layer, SA client and SM under the CM. */
    public MadStack mad() {
        return mad;
    }

    /** The RDMA CM (its ids destroyed), then the IB CM, SA client, SM and MAD layer. */
    @Override
    public void close() {
        cm.close();
        mad.close();
    }
}
