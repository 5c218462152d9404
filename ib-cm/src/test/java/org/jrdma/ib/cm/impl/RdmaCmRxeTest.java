package org.jrdma.ib.cm.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetCounter;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpAttr;

/**
 * The RDMA CM scenarios between two hw-rxe devices on real UDP (loopback addresses 127.X.Y.1 and .2, X.Y
 * random per test): RoCE v2, addresses are IPv4, routes are local, every packet has a GRH.
 */
class RdmaCmRxeTest extends AbstractRdmaCmScenarioTest {
    RxeNetDevice ra;
    RxeNetDevice rb;
    String net;

    @Override
    void openDevices() {
        net = "127." + ThreadLocalRandom.current().nextInt(16, 250) + "." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
        ra = RxeNetDevice.open(core.registrar(), "cma%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
        rb = openServer();
    }

    RxeNetDevice openServer() {
        return RxeNetDevice.open(core.registrar(), "cmb%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
    }

    @Override
    void closeDevices() {
        ra.close();
        rb.close();
    }

    @Override
    IbDevice clientDevice() {
        return ra.ibDevice();
    }

    @Override
    IbDevice serverDevice() {
        return rb.ibDevice();
    }

    @Override
    InetAddress clientAddr() {
        return addr(net + "1");
    }

    @Override
    InetAddress serverAddr() {
        return addr(net + "2");
    }

    /** RoCE: the source is given, else the route to the server's own address would lead to the server device. */
    @Override
    InetAddress resolveSource() {
        return clientAddr();
    }

    @Override
    boolean routesFromSa() {
        return false;
    }

    static InetAddress addr(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    void removeServerDevice() {
        rb.close();
    }

    /** The address comes back with a new device: two devices again (and one for {@code down} to close). */
    @Override
    void afterServerDeviceRemoval() {
        rb = openServer();
        assertEquals(2, core.devices().size());
    }

    /** RoCE: every path has a GRH to the peer's GID. */
    @Override
    void checkConnectedPaths(QpAttr client, QpAttr server) {
        assertNotNull(client.av().grh());
        assertEquals(Gid.of(serverAddr()), client.av().grh().dgid());
        assertNotNull(server.av().grh());
        assertEquals(Gid.of(clientAddr()), server.av().grh().dgid());
    }

    @Override
    void checkUdAhAttr(AhAttr av) {
        assertNotNull(av.grh());
        assertEquals(Gid.of(serverAddr()), av.grh().dgid());
    }

    @Override
    void fabricDiagnostics(StringBuilder b) {
        for (RxeNetDevice d : List.of(ra, rb)) {
            b.append("\n").append(d.ibDevice().name()).append(" wire sent ").append(d.wire().counter(RxeNetCounter.SENT))
                    .append(" received ").append(d.wire().counter(RxeNetCounter.RECEIVED)).append(" unroutable ").append(d.wire().counter(RxeNetCounter.UNROUTABLE))
                    .append(" errors ").append(d.wire().counter(RxeNetCounter.ERRORS));
        }
    }

    @Override
    List<String> fabricThreads() {
        return List.of(NettyWire.THREAD_PREFIX, "rxe");
    }
}
