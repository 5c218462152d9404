package org.jrdma.ib.core.spi;

import java.util.Map;

import org.jrdma.ib.core.IbDevice;

/**
 * {@code struct rdma_link_ops}: a driver that creates devices on request ({@code rdma link add NAME
 * type TYPE netdev IF}) publishes this as an OSGi service, as rxe registers {@code rxe_link_ops}.
 */
public interface RdmaLinkOps {
    /** The {@code type} word of {@code rdma link add}: {@code rxe}. */
    String type();

    /**
     * {@code newlink}: create and register device {@code name} on {@code netdev}; {@code options}
     * holds any further {@code key value} pairs of the command line.
     */
    IbDevice newLink(String name, String netdev, Map<String, String> options);

    /** {@code rdma link delete}: true if this driver created {@code device} and removed it. */
    boolean delLink(IbDevice device);
}
