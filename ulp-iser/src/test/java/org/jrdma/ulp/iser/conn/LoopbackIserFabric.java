package org.jrdma.ulp.iser.conn;

import java.net.InetSocketAddress;
import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.impl.RdmaCmService;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.SaClientImpl;
import org.jrdma.ib.mad.sm.SubnetManager;

/**
 * Two one-port hw-loopback devices on a managed InfiniBand fabric, as ib-cm's {@code RdmaCmIbTest} builds it:
 * the SM and SA on the initiator's port, addresses = the ports' GIDs as IPv6 addresses, routes from the SA.
 */
final class LoopbackIserFabric implements IserFabric {
    private final IbCore core = IbCore.newInstance();
    private final LoopbackFabric fabric = LoopbackFabric.managed();
    private final LoopbackDevice initiatorLo;
    private LoopbackDevice targetLo;
    private final IbDevice initiatorDev;
    private final IbDevice targetDev;
    private final MadLayer mad;
    private final SubnetManager sm;
    private final SaClientImpl sa;
    private final RdmaCmService cm;

    LoopbackIserFabric() throws InterruptedException {
        initiatorLo = new LoopbackDevice(fabric, "ilo%d", 1, 0);
        initiatorDev = initiatorLo.register(core.registrar()).device();
        targetLo = new LoopbackDevice(fabric, "ilo%d", 1, 0);
        targetDev = targetLo.register(core.registrar()).device();
        mad = new MadLayer(core);
        sm = new SubnetManager(mad, initiatorDev, 1, LoopbackFabric.LINK_LID_BASE, 0).start(0);
        sm.sweepNow();
        sa = new SaClientImpl(mad);
        cm = new RdmaCmService(core, mad, sa);
    }

    @Override public RdmaCm cm() { return cm; }
    @Override public IbDevice initiatorDevice() { return initiatorDev; }
    @Override public IbDevice targetDevice() { return targetDev; }

    @Override
    public InetSocketAddress portal(int port) {
        return new InetSocketAddress(targetDev.queryGid(1, 0).toInetAddress(), port);
    }

    @Override
    public IserConnectionConfig initiatorConfig(IserConnectionConfig base) {
        return base.withConnectTimeoutMs(8000);
    }

    @Override
    public org.jrdma.ib.core.spi.UnregisterReport removeTargetDevice() {
        org.jrdma.ib.core.spi.UnregisterReport r = targetLo.close();
        targetLo = null;
        return r;
    }

    @Override
    public void close() {
        cm.close();
        sa.close();
        sm.close();
        mad.close();
        initiatorLo.close();
        if (targetLo != null) {
            targetLo.close();
        }
    }
}
