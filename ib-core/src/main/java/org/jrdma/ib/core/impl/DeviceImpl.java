package org.jrdma.ib.core.impl;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventHandler;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.NodeType;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.spi.DeviceOps;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.PortImmutable;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.spi.UnregisterReport;

/** A registered device: {@code struct ib_device} with its restrack and event handlers. */
final class DeviceImpl implements IbDevice {
    static final System.Logger LOG = System.getLogger("org.jrdma.ib.core");

    enum State {
        REGISTERED, UNREGISTERING, GONE
    }

    final DeviceRegistry registry;
    final DeviceRegistration registration;
    final DeviceOps ops;
    final DeviceAttr attr;
    private final PortImmutable[] immutables;
    final int index;
    private volatile String name;
    volatile State state = State.REGISTERED;
    /** Serializes create/destroy of resources (not the data path). */
    final Object lifecycle = new Object();
    /** Per attached client: its data ({@code ib_set_client_data}); present iff {@code add} succeeded. */
    final Map<IbClient, Object[]> clientData = new ConcurrentHashMap<>();
    private final List<EventHandler> eventHandlers = new CopyOnWriteArrayList<>();
    private final Map<ResourceType, Set<AbstractResource>> restrack = new EnumMap<>(ResourceType.class);
    private final Map<ResourceType, AtomicInteger> ids = new EnumMap<>(ResourceType.class);
    private final AtomicLong nextIova = new AtomicLong(0x10000);
    final RegisteredDevice handle = new Handle();
    UnregisterReport report;

    DeviceImpl(DeviceRegistry registry, DeviceRegistration reg, String name, int index) {
        this.registry = registry;
        this.registration = reg;
        this.ops = reg.ops();
        this.name = name;
        this.index = index;
        for (ResourceType t : ResourceType.values()) {
            restrack.put(t, ConcurrentHashMap.newKeySet());
            ids.put(t, new AtomicInteger());
        }
        this.attr = ops.queryDevice();
        if (attr == null) {
            throw new VerbsException(Errno.EINVAL, name + ": query_device returned nothing");
        }
        this.immutables = new PortImmutable[reg.physPortCnt() + 1];
        for (int p = 1; p <= reg.physPortCnt(); p++) {
            PortImmutable im = ops.getPortImmutable(p);
            if (im == null || im.linkLayer() == null || im.gidTblLen() < 1 || im.pkeyTblLen() < 1) {
                throw new VerbsException(Errno.EINVAL, name + ": port " + p
                        + " needs a link layer and GID and P_Key tables of at least one entry");
            }
            immutables[p] = im;
        }
    }

    /** {@code ib_device_check_mandatory}: every op in {@link DeviceOps#MANDATORY} is implemented. */
    static void checkMandatory(String name, DeviceOps ops) {
        for (Method m : DeviceOps.class.getMethods()) {
            if (!DeviceOps.MANDATORY.contains(m.getName())) {
                continue;
            }
            try {
                Method impl = ops.getClass().getMethod(m.getName(), m.getParameterTypes());
                if (impl.getDeclaringClass() == DeviceOps.class) {
                    throw new VerbsException(Errno.EINVAL, "Device " + name + " is missing mandatory function "
                            + m.getName());
                }
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    // ---- identity and queries

    @Override
    public String name() {
        return name;
    }

    void rename(String newName) {
        this.name = newName;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public String driverName() {
        return registration.driverName();
    }

    @Override
    public NodeType nodeType() {
        return registration.nodeType();
    }

    @Override
    public long nodeGuid() {
        return registration.nodeGuid();
    }

    @Override
    public int physPortCnt() {
        return registration.physPortCnt();
    }

    @Override
    public boolean isRegistered() {
        return state == State.REGISTERED;
    }

    boolean isAlive() {
        return state != State.GONE;
    }

    void checkAlive() {
        if (state == State.GONE) {
            throw new VerbsException(Errno.ENODEV, "device " + name + " was unregistered");
        }
    }

    @Override
    public DeviceAttr queryDevice() {
        checkAlive();
        return attr.copy();
    }

    @Override
    public PortAttr queryPort(int portNum) {
        checkAlive();
        Validate.port(this, portNum, "queryPort");
        PortAttr p = ops.queryPort(portNum).copy();
        return p.linkLayer(immutables[portNum].linkLayer());
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkAlive();
        Validate.port(this, portNum, "queryGid");
        Validate.range("queryGid: index", index, 0, immutables[portNum].gidTblLen() - 1);
        return ops.queryGid(portNum, index);
    }

    @Override
    public int queryPkey(int portNum, int index) {
        checkAlive();
        Validate.port(this, portNum, "queryPkey");
        Validate.range("queryPkey: index", index, 0, immutables[portNum].pkeyTblLen() - 1);
        return ops.queryPkey(portNum, index);
    }

    @Override
    public void modifyPort(int portNum, org.jrdma.ib.core.PortModify modify) {
        checkAlive();
        Validate.port(this, portNum, "modifyPort");
        if (modify == null) {
            throw new VerbsException(Errno.EINVAL, "modifyPort: modify is null");
        }
        if (modify.lid() > 0xbfff || modify.smLid() > 0xbfff) {
            throw new VerbsException(Errno.EINVAL, "modifyPort: LID " + modify.lid() + " / SM LID " + modify.smLid()
                    + " is not a unicast LID");
        }
        if (modify.lmc() > 7) {
            throw new VerbsException(Errno.EINVAL, "modifyPort: LMC " + modify.lmc() + " (0..7)");
        }
        ops.modifyPort(portNum, modify);
    }

    @Override
    public LinkLayer linkLayer(int portNum) {
        Validate.port(this, portNum, "linkLayer");
        return immutables[portNum].linkLayer();
    }

    @Override
    public Map<String, Long> queryHwStats(int portNum) {
        checkAlive();
        Validate.port(this, portNum, "queryHwStats");
        Map<String, Long> stats = ops.queryHwStats(portNum);
        return stats == null ? Map.of() : Collections.unmodifiableMap(new java.util.LinkedHashMap<>(stats));
    }

    @Override
    public String getNetdev(int portNum) {
        checkAlive();
        Validate.port(this, portNum, "getNetdev");
        String netdev = ops.getNetdev(portNum);
        return netdev == null || netdev.isEmpty() ? null : netdev;
    }

    PortImmutable immutable(int portNum) {
        return immutables[portNum];
    }

    // ---- client data

    @Override
    public void setClientData(IbClient client, Object data) {
        Object[] slot = clientData.get(client);
        if (slot == null) {
            throw new VerbsException(Errno.EINVAL, "client " + (client == null ? null : client.name())
                    + " is not attached to device " + name);
        }
        slot[0] = data;
    }

    @Override
    public Object getClientData(IbClient client) {
        Object[] slot = clientData.get(client);
        return slot == null ? null : slot[0];
    }

    // ---- events

    @Override
    public AutoCloseable registerEventHandler(EventHandler handler) {
        if (handler == null) {
            throw new VerbsException(Errno.EINVAL, "registerEventHandler: handler is null");
        }
        checkAlive();
        eventHandlers.add(handler);
        return () -> eventHandlers.remove(handler);
    }

    void dispatch(AsyncEvent event) {
        if (state == State.GONE) {
            return;
        }
        for (EventHandler h : eventHandlers) {
            deliver(h, event);
        }
    }

    static void deliver(EventHandler h, AsyncEvent event) {
        try {
            h.handle(event);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "event handler threw on " + event, e);
        }
    }

    // ---- resources

    @Override
    public ProtectionDomain allocPd(IbClient owner) {
        synchronized (lifecycle) {
            checkAlive();
            Validate.owner(owner, "allocPd");
            checkCount(ResourceType.PD, attr.maxPd());
            PdImpl pd = new PdImpl(this, owner, ops.allocPd());
            pd.id = nextId(ResourceType.PD);
            return track(pd);
        }
    }

    @Override
    public CompletionQueue createCq(IbClient owner, CqInitAttr init) {
        synchronized (lifecycle) {
            checkAlive();
            Validate.owner(owner, "createCq");
            return CqImpl.create(this, owner, init);
        }
    }

    int nextId(ResourceType t) {
        return ids.get(t).getAndIncrement();
    }

    void checkCount(ResourceType t, int max) {
        if (restrack.get(t).size() >= max) {
            throw new VerbsException(Errno.ENOMEM, name + ": no more " + t + "s (device limit " + max + ")");
        }
    }

    /** An I/O virtual address for an MR registered without one: page aligned, never reused. */
    long assignIova(long length) {
        long pages = (Math.max(length, 1) + 4095) / 4096 + 1;
        return nextIova.getAndAdd(pages * 4096);
    }

    <T extends AbstractResource> T track(T r) {
        restrack.get(r.type).add(r);
        return r;
    }

    void untrack(AbstractResource r) {
        restrack.get(r.type).remove(r);
    }

    QpImpl specialQp(QpType type, int port) {
        for (AbstractResource r : restrack.get(ResourceType.QP)) {
            QpImpl qp = (QpImpl) r;
            if (qp.qpType == type && qp.port == port) {
                return qp;
            }
        }
        return null;
    }

    @Override
    public List<ResourceInfo> resources() {
        List<ResourceInfo> out = new ArrayList<>();
        for (ResourceType t : ResourceType.values()) {
            List<AbstractResource> rs = new ArrayList<>(restrack.get(t));
            rs.sort(Comparator.comparingInt(r -> r.id));
            for (AbstractResource r : rs) {
                out.add(r.info());
            }
        }
        return out;
    }

    /**
     * Destroys the resources {@code which} selects and everything that uses them, the way the
     * kernel disassociates on hot-unplug: QPs to ERR (outstanding work flushes), then QPs, MWs,
     * MRs, AHs, SRQs, CQs (counting flushed completions), PDs. A driver failure on one resource is
     * logged and does not stop the rest.
     *
     * @return {leaked infos, flushed count}
     */
    Reaped reap(Predicate<AbstractResource> which) {
        synchronized (lifecycle) {
            Set<AbstractResource> doomed = new LinkedHashSet<>();
            for (ResourceType t : ResourceType.values()) {
                for (AbstractResource r : restrack.get(t)) {
                    if (which.test(r)) {
                        addWithUsers(doomed, r);
                    }
                }
            }
            if (doomed.isEmpty()) {
                return new Reaped(List.of(), 0);
            }
            List<ResourceInfo> infos = new ArrayList<>();
            for (AbstractResource r : doomed) {
                infos.add(r.info());
                if (r instanceof QpImpl) {
                    ((QpImpl) r).quiesced = true;
                } else if (r instanceof CqImpl) {
                    ((CqImpl) r).quiesced = true;
                } else if (r instanceof SrqImpl) {
                    ((SrqImpl) r).quiesced = true;
                }
            }
            for (AbstractResource r : doomed) {
                if (r instanceof QpImpl) {
                    QpImpl qp = (QpImpl) r;
                    if (qp.state != QpState.RESET && qp.state != QpState.ERR) {
                        guarded(qp, () -> ops.modifyQp(qp.dqp, new QpAttr().state(QpState.ERR)));
                        qp.state = QpState.ERR;
                    }
                }
            }
            int flushed = 0;
            WorkCompletion[] wc = new WorkCompletion[16];
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            for (ResourceType t : List.of(ResourceType.QP, ResourceType.MW, ResourceType.MR, ResourceType.AH,
                    ResourceType.SRQ, ResourceType.CQ, ResourceType.PD)) {
                for (AbstractResource r : doomed) {
                    if (r.type != t || !r.valid) {
                        continue;
                    }
                    if (r instanceof CqImpl) {
                        flushed += drainFlushed((CqImpl) r, wc);
                    }
                    guarded(r, r::driverDestroy);
                    r.release();
                }
            }
            return new Reaped(infos, flushed);
        }
    }

    private int drainFlushed(CqImpl cq, WorkCompletion[] wc) {
        int flushed = 0;
        try {
            for (int n; (n = ops.pollCq(cq.dcq, wc, wc.length)) > 0; ) {
                for (int i = 0; i < n; i++) {
                    if (wc[i].status() == WcStatus.WR_FLUSH_ERR) {
                        flushed++;
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, name + ": polling " + cq.label() + " during cleanup failed", e);
        }
        return flushed;
    }

    private static void addWithUsers(Set<AbstractResource> set, AbstractResource r) {
        if (set.add(r)) {
            for (AbstractResource u : r.users) {
                addWithUsers(set, u);
            }
        }
    }

    private void guarded(AbstractResource r, Runnable op) {
        try {
            op.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, name + ": driver failed while destroying " + r.label(), e);
        }
    }

    record Reaped(List<ResourceInfo> leaked, int flushed) {
    }

    @Override
    public String toString() {
        return name;
    }

    /** The driver's handle. */
    private final class Handle implements RegisteredDevice {
        @Override
        public IbDevice device() {
            return DeviceImpl.this;
        }

        @Override
        public void dispatchPortEvent(EventType type, int portNum) {
            if (type.scope() != EventType.Scope.PORT) {
                throw new IllegalArgumentException(type + " is not a port event");
            }
            Validate.port(DeviceImpl.this, portNum, "dispatchPortEvent");
            dispatch(new AsyncEvent(type, DeviceImpl.this, portNum, null, null, null));
        }

        @Override
        public void dispatchDeviceFatal() {
            dispatch(new AsyncEvent(EventType.DEVICE_FATAL, DeviceImpl.this, 0, null, null, null));
        }

        @Override
        public UnregisterReport unregister() {
            return registry.unregisterDevice(DeviceImpl.this);
        }
    }

    static List<IbDevice> sorted(List<DeviceImpl> list) {
        List<IbDevice> out = new ArrayList<>(list);
        out.sort(Comparator.comparingInt(IbDevice::index));
        return Collections.unmodifiableList(out);
    }
}
