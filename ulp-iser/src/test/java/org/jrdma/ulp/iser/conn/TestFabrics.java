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

    @Override
    public void close() {
        fabric.close();
    }
}
