package org.jrdma.ib.core.impl;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.MrType;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DriverPd;

final class PdImpl extends AbstractResource implements ProtectionDomain {
    final DriverPd dpd;

    PdImpl(DeviceImpl device, IbClient owner, DriverPd dpd) {
        super(device, owner, ResourceType.PD);
        this.dpd = dpd;
    }

    @Override
    public MemoryRegion regMr(ByteBuffer buffer, int access) {
        if (buffer == null) {
            throw new VerbsException(Errno.EINVAL, "regMr: buffer is null");
        }
        return regMr(buffer, device.assignIova(buffer.remaining()), access);
    }

    @Override
    public MemoryRegion regMr(ByteBuffer buffer, long iova, int access) {
        synchronized (device.lifecycle) {
            checkValid();
            Validate.mr(device, buffer, iova, access);
            device.checkCount(ResourceType.MR, device.attr.maxMr());
            MrImpl mr = new MrImpl(device, this, device.ops.regUserMr(dpd, buffer, iova, access));
            return device.track(mr);
        }
    }

    @Override
    public MemoryRegion allocMr(MrType type, int maxNumSg) {
        synchronized (device.lifecycle) {
            checkValid();
            if (type == null) {
                throw new VerbsException(Errno.EINVAL, "allocMr: type is null");
            }
            if (maxNumSg < 1 || maxNumSg > device.attr.maxFastRegPageListLen()) {
                throw new VerbsException(Errno.EINVAL, "allocMr: max_num_sg " + maxNumSg + " out of range 1.."
                        + device.attr.maxFastRegPageListLen());
            }
            device.checkCount(ResourceType.MR, device.attr.maxMr());
            return device.track(new MrImpl(device, this, device.ops.allocMr(dpd, type, maxNumSg)));
        }
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        synchronized (device.lifecycle) {
            checkValid();
            if (type == null) {
                throw new VerbsException(Errno.EINVAL, "allocMw: type is null");
            }
            device.checkCount(ResourceType.MW, device.attr.maxMw());
            return device.track(new MwImpl(device, this, type, device.ops.allocMw(dpd, type)));
        }
    }

    @Override
    public QueuePair createQp(QpInitAttr attr) {
        synchronized (device.lifecycle) {
            checkValid();
            return QpImpl.create(device, this, attr);
        }
    }

    @Override
    public SharedReceiveQueue createSrq(SrqInitAttr attr) {
        synchronized (device.lifecycle) {
            checkValid();
            return SrqImpl.create(device, this, attr);
        }
    }

    @Override
    public AddressHandle createAh(AhAttr attr) {
        synchronized (device.lifecycle) {
            checkValid();
            Validate.ah(device, attr, "createAh");
            device.checkCount(ResourceType.AH, device.attr.maxAh());
            AhImpl ah = new AhImpl(device, this, attr.copy(), device.ops.createAh(dpd, attr.copy()));
            return device.track(ah);
        }
    }

    @Override
    public void dealloc() {
        destroyChecked();
    }

    @Override
    void driverDestroy() {
        device.ops.deallocPd(dpd);
    }

    @Override
    String summary() {
        return "users " + users.size();
    }
}
