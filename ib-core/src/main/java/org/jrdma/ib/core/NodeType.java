package org.jrdma.ib.core;

/** {@code enum rdma_node_type} with the names {@code rdma dev} prints. */
public enum NodeType {
    CA(1, "ca"), SWITCH(2, "switch"), ROUTER(3, "router"), RNIC(4, "rnic");

    private final int value;
    private final String label;

    NodeType(int value, String label) {
        this.value = value;
        this.label = label;
    }

    public int value() {
        return value;
    }

    public String label() {
        return label;
    }
}
