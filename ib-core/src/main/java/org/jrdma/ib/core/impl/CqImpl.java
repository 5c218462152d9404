package org.jrdma.ib.core.impl;

import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.CompletionHandler;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventHandler;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.spi.CqContext;
import org.jrdma.ib.core.spi.DriverCq;

final class CqImpl extends AbstractResource implements CompletionQueue, CqContext {
    private final CompletionHandler compHandler;
    private final EventHandler eventHandler;
    private final Object context;
    DriverCq dcq;
    /** Set when the owner is gone: flush completions still land in the CQ, but no handler runs. */
    volatile boolean quiesced;

    private CqImpl(DeviceImpl device, IbClient owner, CqInitAttr attr) {
        super(device, owner, ResourceType.CQ);
        this.compHandler = attr.compHandler();
        this.eventHandler = attr.eventHandler();
        this.context = attr.context();
        this.id = device.nextId(ResourceType.CQ);
    }

    static CqImpl create(DeviceImpl device, IbClient owner, CqInitAttr attr) {
        if (attr == null) {
            throw new VerbsException(Errno.EINVAL, "createCq: attr is null");
        }
        if (attr.cqe() < 1 || attr.cqe() > device.attr.maxCqe()) {
            throw new VerbsException(Errno.EINVAL, "createCq: cqe " + attr.cqe() + " out of range 1.."
                    + device.attr.maxCqe());
        }
        if (attr.compVector() < 0 || attr.compVector() >= device.attr.numCompVectors()) {
            throw new VerbsException(Errno.EINVAL, "createCq: comp_vector " + attr.compVector()
                    + " out of range 0.." + (device.attr.numCompVectors() - 1));
        }
        device.checkCount(ResourceType.CQ, device.attr.maxCq());
        CqImpl cq = new CqImpl(device, owner, attr);
        cq.dcq = device.ops.createCq(cq, attr.cqe(), attr.compVector());
        return device.track(cq);
    }

    @Override
    public int cqe() {
        return dcq.cqe();
    }

    @Override
    public int poll(WorkCompletion[] wc) {
        Validate.notNull(wc, "poll", "wc");
        return poll(wc, wc.length);
    }

    @Override
    public int poll(WorkCompletion[] wc, int max) {
        checkValid();
        Validate.notNull(wc, "poll", "wc");
        if (max < 0 || max > wc.length) {
            throw new VerbsException(Errno.EINVAL, "poll: max " + max + " outside the array of " + wc.length);
        }
        for (int i = 0; i < max; i++) {
            if (wc[i] == null) {
                throw new VerbsException(Errno.EINVAL, "poll: wc[" + i + "] is null");
            }
        }
        return device.ops.pollCq(dcq, wc, max);
    }

    @Override
    public boolean reqNotify(CqNotify type, boolean reportMissedEvents) {
        checkValid();
        Validate.notNull(type, "reqNotify", "type");
        return device.ops.reqNotifyCq(dcq, type, reportMissedEvents);
    }

    @Override
    public void resize(int cqe) {
        synchronized (device.lifecycle) {
            checkValid();
            if (cqe < 1 || cqe > device.attr.maxCqe()) {
                throw new VerbsException(Errno.EINVAL, "resizeCq: cqe " + cqe + " out of range 1.." + device.attr.maxCqe());
            }
            device.ops.resizeCq(dcq, cqe);
        }
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
        device.ops.destroyCq(dcq);
    }

    @Override
    String summary() {
        return "cqe " + (dcq == null ? 0 : dcq.cqe()) + " users " + users.size();
    }

    // ---- CqContext: the driver calls up

    @Override
    public CompletionQueue cq() {
        return this;
    }

    @Override
    public void completion() {
        if (compHandler != null && valid && !quiesced) {
            try {
                compHandler.onCompletion(this);
            } catch (RuntimeException e) {
                DeviceImpl.LOG.log(System.Logger.Level.WARNING, device.name() + ": completion handler of CQ " + id
                        + " threw", e);
            }
        }
    }

    @Override
    public void overflow() {
        if (eventHandler != null && valid && !quiesced) {
            DeviceImpl.deliver(eventHandler, new AsyncEvent(EventType.CQ_ERR, device, 0, null, this, null));
        }
    }
}
