package org.jrdma.ib.core;

/** {@code enum ib_port_state}, numbered as the kernel numbers it. */
public enum PortState {
    NOP(0), DOWN(1), INIT(2), ARMED(3), ACTIVE(4), ACTIVE_DEFER(5);

    private final int value;

    PortState(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }
}
