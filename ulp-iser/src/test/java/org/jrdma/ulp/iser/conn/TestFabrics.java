package org.jrdma.ulp.iser.conn;

import java.net.InetSocketAddress;
import org.jrdma.ib.cm.RdmaCm;

/** For other packages' tests: the conn tests' two-device fabrics behind a public face (test access only). */
public final class TestFabrics implements AutoCloseable {
    private final IserFabric fabric;

    private TestFabrics(IserFabric fabric) {
        this.fabric = fabric;
    }

    /** Two hw-rxe devices on loopback UDP with an RDMA CM. */
    public static TestFabrics rxe() {
        return new TestFabrics(new RxeIserFabric());
    }

    public RdmaCm cm() {
        return fabric.cm();
    }

    public InetSocketAddress portal(int port) {
        return fabric.portal(port);
    }

    public IserConnectionConfig initiatorConfig(IserConnectionConfig base) {
        return fabric.initiatorConfig(base);
    }

    public org.jrdma.ib.core.IbDevice initiatorDevice() {
        return fabric.initiatorDevice();
    }

    public org.jrdma.ib.core.IbDevice targetDevice() {
        return fabric.targetDevice();
    }

    /** {@code rdma link delete} of the initiator's device; what ib-core had to clean up after its clients. */
    public org.jrdma.ib.core.spi.UnregisterReport removeInitiatorDevice() {
        return fabric.removeInitiatorDevice();
    }

    /** {@code rdma link add} of the initiator's device again, same address. */
    public void restoreInitiatorDevice() {
        fabric.restoreInitiatorDevice();
    }

    /** The device's tracked resources of one kind ({@code rdma resource show}), for leak checks. */
    public static long count(org.jrdma.ib.core.IbDevice d, org.jrdma.ib.core.ResourceType type) {
        return IserFabric.count(d, type);
    }

    @Override
    public void close() {
        fabric.close();
    }
}
