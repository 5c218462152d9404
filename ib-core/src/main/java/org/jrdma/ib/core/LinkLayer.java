package org.jrdma.ib.core;

/** {@code enum rdma_link_layer}: InfiniBand fabric ports, or Ethernet (RoCE) ports. */
public enum LinkLayer {
    INFINIBAND("InfiniBand"), ETHERNET("Ethernet");

    private final String label;

    LinkLayer(String label) {
        this.label = label;
    }

    /** As {@code ibv_devinfo} prints it. */
    public String label() {
        return label;
    }
}
