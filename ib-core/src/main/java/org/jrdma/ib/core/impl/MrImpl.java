package org.jrdma.ib.core.impl;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.spi.DriverMr;

final class MrImpl extends AbstractResource implements MemoryRegion {
    final PdImpl pd;
    final DriverMr dmr;

    MrImpl(DeviceImpl device, PdImpl pd, DriverMr dmr) {
        super(device, pd.owner, ResourceType.MR);
        this.pd = pd;
        this.dmr = dmr;
        uses(pd);
        this.id = dmr.lkey() >>> 8;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public int lkey() {
        return dmr.lkey();
    }

    @Override
    public int rkey() {
        return dmr.rkey();
    }

    @Override
    public long iova() {
        return dmr.iova();
    }

    @Override
    public long length() {
        return dmr.length();
    }

    @Override
    public int access() {
        return dmr.access();
    }

    @Override
    public void rereg(ByteBuffer buffer, long iova, int access) {
        synchronized (device.lifecycle) {
            checkValid();
            Validate.mr(device, buffer, iova, access);
            device.ops.reregUserMr(dmr, buffer, iova, access);
        }
    }

    @Override
    public void map(ByteBuffer buffer, long iova) {
        checkValid();
        Validate.mr(device, buffer, iova, 0);
        device.ops.mapMrSg(dmr, buffer, iova);
    }

    @Override
    public void dereg() {
        destroyChecked();
    }

    @Override
    void driverDestroy() {
        device.ops.deregMr(dmr);
    }

    @Override
    String summary() {
        return String.format("lkey 0x%x rkey 0x%x iova 0x%x length %d access %s pdn %d", lkey(), rkey(), iova(),
                length(), Access.toString(access()), pd.id);
    }
}
