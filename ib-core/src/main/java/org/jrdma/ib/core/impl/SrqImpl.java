package org.jrdma.ib.core.impl;

import java.util.EnumSet;
import java.util.Set;

import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventHandler;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqAttrMask;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DriverSrq;
import org.jrdma.ib.core.spi.SrqContext;

final class SrqImpl extends AbstractResource implements SharedReceiveQueue, SrqContext {
    final PdImpl pd;
    private final EventHandler eventHandler;
    private final Object context;
    DriverSrq dsrq;
    volatile boolean quiesced;

    private SrqImpl(DeviceImpl device, PdImpl pd, SrqInitAttr attr) {
        super(device, pd.owner, ResourceType.SRQ);
        this.pd = pd;
        this.eventHandler = attr.eventHandler();
        this.context = attr.context();
        this.id = device.nextId(ResourceType.SRQ);
    }

    static SrqImpl create(DeviceImpl device, PdImpl pd, SrqInitAttr init) {
        if (init == null || init.attr() == null) {
            throw new VerbsException(Errno.EINVAL, "createSrq: attr is null");
        }
        SrqAttr a = init.attr();
        if (a.maxWr() < 1 || a.maxWr() > device.attr.maxSrqWr()) {
            throw new VerbsException(Errno.EINVAL, "createSrq: max_wr " + a.maxWr() + " out of range 1.."
                    + device.attr.maxSrqWr());
        }
        if (a.maxSge() < 1 || a.maxSge() > device.attr.maxSrqSge()) {
            throw new VerbsException(Errno.EINVAL, "createSrq: max_sge " + a.maxSge() + " out of range 1.."
                    + device.attr.maxSrqSge());
        }
        if (a.srqLimit() < 0 || a.srqLimit() > a.maxWr()) {
            throw new VerbsException(Errno.EINVAL, "createSrq: srq_limit " + a.srqLimit() + " above max_wr " + a.maxWr());
        }
        device.checkCount(ResourceType.SRQ, device.attr.maxSrq());
        SrqImpl srq = new SrqImpl(device, pd, init);
        srq.dsrq = device.ops.createSrq(srq, pd.dpd, a.copy());
        srq.uses(pd);
        return device.track(srq);
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public void postRecv(RecvWr wr) {
        checkValid();
        Validate.notNull(wr, "postSrqRecv", "wr");
        device.ops.postSrqRecv(dsrq, wr);
    }

    @Override
    public void modify(SrqAttr attr, Set<SrqAttrMask> mask) {
        synchronized (device.lifecycle) {
            checkValid();
            if (attr == null || mask == null || mask.isEmpty()) {
                throw new VerbsException(Errno.EINVAL, "modifySrq: nothing to modify");
            }
            SrqAttr cur = device.ops.querySrq(dsrq);
            int maxWr = mask.contains(SrqAttrMask.MAX_WR) ? attr.maxWr() : cur.maxWr();
            if (mask.contains(SrqAttrMask.MAX_WR) && (maxWr < 1 || maxWr > device.attr.maxSrqWr())) {
                throw new VerbsException(Errno.EINVAL, "modifySrq: max_wr " + maxWr + " out of range 1.."
                        + device.attr.maxSrqWr());
            }
            if (mask.contains(SrqAttrMask.LIMIT) && (attr.srqLimit() < 0 || attr.srqLimit() > maxWr)) {
                throw new VerbsException(Errno.EINVAL, "modifySrq: srq_limit " + attr.srqLimit() + " above max_wr " + maxWr);
            }
            device.ops.modifySrq(dsrq, attr.copy(), EnumSet.copyOf(mask));
        }
    }

    @Override
    public SrqAttr query() {
        checkValid();
        return device.ops.querySrq(dsrq);
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void destroy() {
        destroyChecked();
    }

    @Override
    void driverDestroy() {
        device.ops.destroySrq(dsrq);
    }

    @Override
    String summary() {
        return "pdn " + pd.id + " users " + users.size();
    }

    @Override
    public SharedReceiveQueue srq() {
        return this;
    }

    @Override
    public void event(EventType type) {
        if (type.scope() != EventType.Scope.SRQ) {
            throw new IllegalArgumentException(type + " is not an SRQ event");
        }
        if (eventHandler != null && valid && !quiesced) {
            DeviceImpl.deliver(eventHandler, new AsyncEvent(type, device, 0, null, null, this));
        }
    }
}
