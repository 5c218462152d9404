package org.jrdma.ib.core.impl;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.spi.DriverAh;

final class AhImpl extends AbstractResource implements AddressHandle {
    final PdImpl pd;
    final AhAttr attr;
    final DriverAh dah;

    AhImpl(DeviceImpl device, PdImpl pd, AhAttr attr, DriverAh dah) {
        super(device, pd.owner, ResourceType.AH);
        this.pd = pd;
        this.attr = attr;
        this.dah = dah;
        uses(pd);
        this.id = device.nextId(ResourceType.AH);
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public AhAttr attr() {
        return attr.copy();
    }

    @Override
    public void destroy() {
        destroyChecked();
    }

    @Override
    void driverDestroy() {
        device.ops.destroyAh(dah);
    }

    @Override
    String summary() {
        return "port " + attr.portNum() + " dlid " + attr.dlid()
                + (attr.grh() == null ? "" : " dgid " + attr.grh().dgid().toCompressedString()) + " pdn " + pd.id;
    }
}
