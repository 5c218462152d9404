package org.jrdma.ulp.iser.conn;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.impl.RdmaCmService;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.impl.MadLayer;

/**
 * Two hw-rxe devices on real UDP in one JVM, as ib-cm's {@code RdmaCmRxeTest} builds them (loopback addresses
 * 127.X.Y.1 = initiator, .2 = target, X.Y random per fabric), with the MAD layer and an RDMA CM on top.
 */
final class RxeIserFabric implements IserFabric {
    private final IbCore core = IbCore.newInstance();
    private final String net = "127." + ThreadLocalRandom.current().nextInt(16, 250) + "."
            + ThreadLocalRandom.current().nextInt(1, 250) + ".";
    private RxeNetDevice initiatorDev;
    private RxeNetDevice targetDev;
    private IbDevice targetIb;
    private final MadLayer mad;
    private final RdmaCmService cm;

    RxeIserFabric() {
        restoreInitiatorDevice();
        restoreTargetDevice();
        mad = new MadLayer(core);
        cm = new RdmaCmService(core, mad);
    }

    @Override public RdmaCm cm() { return cm; }
    @Override public IbDevice initiatorDevice() { return initiatorDev.ibDevice(); }
    @Override public IbDevice targetDevice() { return targetIb; }

    @Override
    public InetSocketAddress portal(int port) {
        return new InetSocketAddress(addr(net + "2"), port);
    }

    /** RoCE: the source address picks the initiator device (else the route to .2 leads to the target's). */
    @Override
    public IserConnectionConfig initiatorConfig(IserConnectionConfig base) {
        return base.withSourceAddress(addr(net + "1")).withConnectTimeoutMs(8000);
    }

    @Override
    public org.jrdma.ib.core.spi.UnregisterReport removeTargetDevice() {
        org.jrdma.ib.core.spi.UnregisterReport r = targetDev.close();
        targetDev = null;
        return r;
    }

    private static InetAddress addr(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public org.jrdma.ib.core.spi.UnregisterReport removeInitiatorDevice() {
        org.jrdma.ib.core.spi.UnregisterReport r = initiatorDev.close();
        initiatorDev = null;
        return r;
    }

    @Override
    public void restoreTargetDevice() {
        targetDev = RxeNetDevice.open(core.registrar(), "iib%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
        targetIb = targetDev.ibDevice();
    }

    @Override
    public void restoreInitiatorDevice() {
        initiatorDev = RxeNetDevice.open(core.registrar(), "iia%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
    }

    @Override
    public void close() {
        cm.close();
        mad.close();
        if (initiatorDev != null) {
            initiatorDev.close();
        }
        if (targetDev != null) {
            targetDev.close();
        }
    }
}
