package org.jrdma.ulp.iser.conn;

import java.net.InetSocketAddress;
import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceType;

/** Two devices in one JVM (an initiator's and a target's) and an RDMA CM over them, for transport tests. */
interface IserFabric extends AutoCloseable {
    RdmaCm cm();

    IbDevice initiatorDevice();

    IbDevice targetDevice();

    /** The target's address and {@code port}. */
    InetSocketAddress portal(int port);

    /** {@code base} as the initiator needs it on this fabric (a source address, a connect timeout). */
    IserConnectionConfig initiatorConfig(IserConnectionConfig base);

    /**
     * Takes the target device away (hot unplug): the RDMA CM sends DEVICE_REMOVAL to the ids on it; what ib-core
     * had to destroy itself because its owner left it behind is in the report.
     */
    org.jrdma.ib.core.spi.UnregisterReport removeTargetDevice();

    /**
     * Takes the initiator's device away ({@code rdma link delete}): what ib-core had to destroy itself because a
     * client left it behind is in the report. Only where the fabric can give it back ({@link #restoreInitiatorDevice}).
     */
    default org.jrdma.ib.core.spi.UnregisterReport removeInitiatorDevice() {
        throw new UnsupportedOperationException("no initiator device removal on " + getClass().getSimpleName());
    }

    /** The target's device again after {@link #removeTargetDevice}, on the same address. */
    default void restoreTargetDevice() {
        throw new UnsupportedOperationException("no target device restore on " + getClass().getSimpleName());
    }

    /** The initiator's device again, on the same address ({@code rdma link add}). */
    default void restoreInitiatorDevice() {
        throw new UnsupportedOperationException("no initiator device removal on " + getClass().getSimpleName());
    }

    @Override
    void close();

    /** The device's tracked resources of one kind ({@code rdma resource show}), for leak checks. */
    static long count(IbDevice d, ResourceType type) {
        return d.resources().stream().filter(r -> r.type() == type).count();
    }
}
