package org.jrdma.itest.client;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.itest.client.api.CallbackEvent;
import org.jrdma.itest.client.api.CallbackRecorder;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * A whiteboard {@link IbClient}. Per device, add allocates a PD, a CQ and an RC QP (moved to INIT);
 * remove destroys only the QP and deliberately leaves the PD and CQ for ib-core to destroy (and
 * report as leaked). Every callback is recorded, and every broken promise of the client contract
 * becomes a violation.
 */
@Component(service = {IbClient.class, CallbackRecorder.class}, immediate = true)
public class RecordingClient implements IbClient, CallbackRecorder {
    /** What add sets as client data. */
    record PerDevice(ProtectionDomain pd, CompletionQueue cq, QueuePair qp) {
    }

    private final Ledger ledger = Ledger.INSTANCE;
    private final AtomicInteger inCallback = new AtomicInteger();
    /** Attached devices (identity: a device object is one registration) and what add set for them. */
    private final Map<IbDevice, PerDevice> attached = new IdentityHashMap<>();
    private final Map<IbDevice, Integer> adds = new IdentityHashMap<>();
    /** Devices already removed; weak so that gone devices can be collected (DeviceImpl has identity equals). */
    private final Set<IbDevice> removed = Collections.newSetFromMap(new WeakHashMap<>());
    private int generation;

    @Activate
    void activate() {
        generation = ledger.nextGeneration();
        synchronized (this) {
            publish();
        }
    }

    @Deactivate
    void deactivate() {
        synchronized (this) {
            if (!attached.isEmpty()) {
                ledger.violation("generation " + generation + " deactivated while still attached to "
                        + names(attached.keySet()));
            }
        }
    }

    @Override
    public String name() {
        return CLIENT_NAME;
    }

    @Override
    public void add(IbDevice device) {
        enter("add", device);
        try {
            record("add", device);
            synchronized (this) {
                if (removed.contains(device)) {
                    ledger.violation("add for " + device.name() + " after its remove");
                }
                if (attached.containsKey(device)) {
                    ledger.violation("second add for " + device.name());
                }
            }
            PerDevice data;
            try {
                ProtectionDomain pd = device.allocPd(this);
                CompletionQueue cq = device.createCq(this, new CqInitAttr().cqe(16));
                QueuePair qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cq)
                        .cap(new QpCap().maxSendWr(4).maxRecvWr(4)));
                qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(Access.REMOTE_WRITE));
                data = new PerDevice(pd, cq, qp);
            } catch (RuntimeException e) {
                ledger.violation("resources on " + device.name() + " failed: " + e);
                throw e;
            }
            device.setClientData(this, data);
            if (device.getClientData(this) != data) {
                ledger.violation("getClientData on " + device.name() + " is not what add set");
            }
            synchronized (this) {
                attached.put(device, data);
                adds.merge(device, 1, Integer::sum);
                publish();
            }
        } finally {
            exit();
        }
    }

    @Override
    public void remove(IbDevice device, Object clientData) {
        enter("remove", device);
        try {
            record("remove", device);
            PerDevice data;
            synchronized (this) {
                if (removed.contains(device)) {
                    ledger.violation("remove for " + device.name() + " after its remove");
                }
                data = attached.remove(device);
                adds.remove(device);
                removed.add(device);
                publish();
            }
            if (data == null) {
                ledger.violation("remove for " + device.name() + " without add");
                return;
            }
            if (clientData != data) {
                ledger.violation("remove for " + device.name() + " got client data " + clientData + ", add set " + data);
            }
            // the device still works during remove: query it, then destroy the QP only; the PD and
            // CQ are left for ib-core to force-destroy (and report as leaked)
            try {
                device.queryPort(1);
                data.qp().destroy();
            } catch (RuntimeException e) {
                ledger.violation("remove for " + device.name() + ": the device no longer works: " + e);
            }
        } finally {
            exit();
        }
    }

    private void enter(String kind, IbDevice device) {
        if (inCallback.incrementAndGet() != 1) {
            ledger.violation(kind + " for " + device.name() + " overlaps another callback");
        }
    }

    private void exit() {
        inCallback.decrementAndGet();
    }

    private void record(String kind, IbDevice device) {
        ledger.record(new CallbackEvent(kind, device.name(), device.index(), Thread.currentThread().getName(),
                generation));
    }

    /** Caller holds this. */
    private void publish() {
        Map<String, Integer> now = new LinkedHashMap<>();
        adds.forEach((d, n) -> now.put(d.name(), n));
        ledger.attached(now);
    }

    private static List<String> names(Set<IbDevice> devices) {
        return devices.stream().map(IbDevice::name).toList();
    }

    // CallbackRecorder: the shared ledger

    @Override
    public List<String> events() {
        return ledger.events();
    }

    @Override
    public List<CallbackEvent> details() {
        return ledger.details();
    }

    @Override
    public void clear() {
        ledger.clear();
    }

    @Override
    public List<String> violations() {
        return ledger.violations();
    }

    @Override
    public int generation() {
        return ledger.generation();
    }

    @Override
    public Map<String, Integer> attached() {
        return ledger.attached();
    }
}
