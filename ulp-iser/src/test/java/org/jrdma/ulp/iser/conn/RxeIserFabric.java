package org.jrdma.ulp.iser.conn;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.impl.RdmaCmService;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.mad.impl.MadLayer;

/**
 * Two hw-rxe devices on real UDP in one JVM, as ib-cm's {@code RdmaCmRxeTest} builds them (loopback addresses
 * 127.X.Y.1 = initiator, .2 = target, X.Y random per fabric), with the MAD layer and an RDMA CM on top.
 */
final class RxeIserFabric implements AutoCloseable {
    final IbCore core = IbCore.newInstance();
    final String net = "127." + ThreadLocalRandom.current().nextInt(16, 250) + "."
            + ThreadLocalRandom.current().nextInt(1, 250) + ".";
    final RxeNetDevice initiatorDev;
    RxeNetDevice targetDev;
    final MadLayer mad;
    final RdmaCmService cm;

    RxeIserFabric() {
        initiatorDev = RxeNetDevice.open(core.registrar(), "iia%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
        targetDev = RxeNetDevice.open(core.registrar(), "iib%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
        mad = new MadLayer(core);
        cm = new RdmaCmService(core, mad);
    }

    InetAddress initiatorAddr() {
        return addr(net + "1");
    }

    InetSocketAddress portal(int port) {
        return new InetSocketAddress(addr(net + "2"), port);
    }

    /** Initiator-side config: the source address picks the initiator device (else the route leads to the target's). */
    IserConnectionConfig initiatorConfig(IserConnectionConfig base) {
        return base.withSourceAddress(initiatorAddr()).withConnectTimeoutMs(8000);
    }

    static long count(IbDevice d, ResourceType type) {
        return d.resources().stream().filter(r -> r.type() == type).count();
    }

    /** Takes the target device away (hot unplug): the RDMA CM sends DEVICE_REMOVAL to the ids on it. */
    void removeTargetDevice() {
        targetDev.close();
        targetDev = null;
    }

    private static InetAddress addr(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        cm.close();
        mad.close();
        initiatorDev.close();
        if (targetDev != null) {
            targetDev.close();
        }
    }
}
