package org.jrdma.ib.cm;

/** {@code enum rdma_ucm_port_space}: the service ID is {@code ps << 16 | port}. */
public enum RdmaPortSpace {
    IPOIB(0x0002), IB(0x013f), TCP(0x0106), UDP(0x0111);

    private final int value;

    RdmaPortSpace(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** {@code rdma_get_service_id}: {@code RDMA_IB_IP_PS_* | port}. */
    public long serviceId(int port) {
        return (long) value << 16 | (port & 0xffff);
    }
}
