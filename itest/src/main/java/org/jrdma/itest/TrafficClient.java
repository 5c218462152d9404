package org.jrdma.itest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;

/**
 * The ULP of {@link LoopbackHotUnplugTest} and {@link RxeHotUnplugTest}: on the device named
 * {@link #target} (a loopback device with two ports) add starts a {@link TrafficSession}; remove
 * stops and drains it. With a {@link #peer} (two one-port devices, rxe) the session starts at the
 * add of whichever of the two comes second and runs from target/1 to peer/1; the remove of either
 * closes it (the other's remove then finds it closed). Every callback,
 * for any device, is recorded ("add lo0", "remove lo0"), and so is every broken promise of the
 * client contract (overlapping callbacks, a remove without add, wrong client data).
 */
final class TrafficClient implements IbClient {
    static final String NAME = "traffic";

    private final String target;
    /** The second device, or null: port 1 to port 2 of {@link #target}. */
    private final String peer;
    /** Devices of {@link #target} and {@link #peer} added and not yet removed, by name. */
    private final java.util.Map<String, IbDevice> present = new java.util.HashMap<>();
    private final java.util.Set<IbDevice> removed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private final boolean lazy;
    private final boolean bothWays;
    private final List<String> events = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final List<TrafficSession> sessions = new ArrayList<>();
    private final AtomicInteger inCallback = new AtomicInteger();

    /**
     * @param lazy if true, remove neither stops the traffic nor frees anything (a misbehaving ULP:
     *        ib-core has to clean up, and the traffic threads have to notice on their own)
     * @param bothWays traffic from port 2 to port 1 too, on a second thread
     */
    TrafficClient(String target, boolean lazy, boolean bothWays) {
        this(target, null, lazy, bothWays);
    }

    /** Traffic from {@code target}/1 to {@code peer}/1 (and back if {@code bothWays}). */
    TrafficClient(String target, String peer, boolean lazy, boolean bothWays) {
        this.target = target;
        this.peer = peer;
        this.lazy = lazy;
        this.bothWays = bothWays;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void add(IbDevice device) {
        enter("add", device);
        try {
            record("add " + device.name());
            if (peer == null) {
                if (!device.name().equals(target)) {
                    return;
                }
                TrafficSession s = new TrafficSession(device, this, lazy, bothWays);
                s.open();
                device.setClientData(this, s);
                synchronized (this) {
                    sessions.add(s);
                }
                return;
            }
            if (!device.name().equals(target) && !device.name().equals(peer)) {
                return;
            }
            IbDevice a;
            IbDevice b;
            synchronized (this) {
                present.put(device.name(), device);
                a = present.get(target);
                b = present.get(peer);
            }
            if (a == null || b == null) {
                return; // the session starts when the other one comes
            }
            TrafficSession s = new TrafficSession(a, 1, b, 1, this, lazy, bothWays);
            // rxe over real UDP: 537 ms per try (4.3 s in all), so that a host busy with other builds does
            // not end a session in RETRY_EXC_ERR (seen with a QEMU guest running: the peer got no packet for 0.5 s)
            s.ackTimeout = 17;
            s.open();
            a.setClientData(this, s);
            b.setClientData(this, s);
            synchronized (this) {
                sessions.add(s);
            }
        } finally {
            inCallback.decrementAndGet();
        }
    }

    @Override
    public void remove(IbDevice device, Object clientData) {
        enter("remove", device);
        try {
            record("remove " + device.name());
            TrafficSession s = null;
            boolean again;
            synchronized (this) {
                for (TrafficSession t : sessions) {
                    if (t.device == device || t.peerDevice == device) {
                        s = t;
                    }
                }
                present.remove(device.name(), device);
                again = !removed.add(device);
            }
            if (again) {
                violation("second remove of " + device.name());
            }
            if (clientData != s) {
                violation("remove of " + device.name() + " with client data " + clientData + ", expected " + s);
            }
            if (s != null) {
                if (!s.closeRan) {
                    s.close(device);
                } else if (peer == null) {
                    violation("second remove of the session on " + device.name());
                }
                // two devices: the other end's remove closed it already
            }
        } finally {
            inCallback.decrementAndGet();
        }
    }

    private void enter(String what, IbDevice device) {
        if (inCallback.incrementAndGet() != 1) {
            violation(what + " of " + device.name() + " overlaps another callback");
        }
    }

    private synchronized void record(String e) {
        events.add(e);
    }

    private synchronized void violation(String v) {
        violations.add(v);
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    /** Callbacks for devices whose name starts with {@code prefix}. */
    synchronized List<String> events(String prefix) {
        return events.stream().filter(e -> e.substring(e.indexOf(' ') + 1).startsWith(prefix)).toList();
    }

    synchronized long count(String event) {
        return events.stream().filter(event::equals).count();
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    synchronized List<TrafficSession> sessions() {
        return List.copyOf(sessions);
    }

    /** The newest session, or null. */
    synchronized TrafficSession current() {
        return sessions.isEmpty() ? null : sessions.get(sessions.size() - 1);
    }
}
