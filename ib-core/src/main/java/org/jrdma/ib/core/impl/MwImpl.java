package org.jrdma.ib.core.impl;

import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.spi.DriverMw;

final class MwImpl extends AbstractResource implements MemoryWindow {
    final PdImpl pd;
    final MwType mwType;
    final DriverMw dmw;

    MwImpl(DeviceImpl device, PdImpl pd, MwType mwType, DriverMw dmw) {
        super(device, pd.owner, ResourceType.MW);
        this.pd = pd;
        this.mwType = mwType;
        this.dmw = dmw;
        uses(pd);
        this.id = dmw.rkey() >>> 8;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public MwType type() {
        return mwType;
    }

    @Override
    public int rkey() {
        return dmw.rkey();
    }

    @Override
    public void dealloc() {
        destroyChecked();
    }

    @Override
    void driverDestroy() {
        device.ops.deallocMw(dmw);
    }

    @Override
    String summary() {
        return String.format("%s rkey 0x%x pdn %d", mwType, rkey(), pd.id);
    }
}
