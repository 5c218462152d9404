package org.jrdma.ib.core;

/** {@code enum ib_port_phys_state}, numbered as the kernel numbers it. */
public enum PhysState {
    SLEEP(1), POLLING(2), DISABLED(3), PORT_CONFIGURATION_TRAINING(4), LINK_UP(5),
    LINK_ERROR_RECOVERY(6), PHY_TEST(7);

    private final int value;

    PhysState(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }
}
