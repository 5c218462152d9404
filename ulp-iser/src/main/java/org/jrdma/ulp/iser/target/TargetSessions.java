package org.jrdma.ulp.iser.target;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.ulp.iser.login.SessionParams;

/**
 * The runtime's sessions by TSIH ({@code iscsit_session} list of a TPG): TSIH allocation, new sessions, and
 * ERL 0 session reinstatement: a new session with the ISID and
 * InitiatorName of an existing one to the same target closes the old one (RFC 7143 section 6.3.5).
 */
final class TargetSessions {
    private final Map<Integer, TargetSession> byTsih = new ConcurrentHashMap<>();
    private final AtomicInteger lastTsih = new AtomicInteger();
    private final TargetCounters counters;

    TargetSessions(TargetCounters counters) {
        this.counters = counters;
    }

    /** A non-zero 16-bit TSIH no live session has. */
    int allocateTsih() {
        while (true) {
            int tsih = lastTsih.incrementAndGet() & 0xffff;
            if (tsih != 0 && !byTsih.containsKey(tsih)) {
                return tsih;
            }
        }
    }

    /**
     * The new session {@code c} starts, closing those it reinstates; null if its TSIH is taken (no login joins
     * a live session: the login refuses a non-zero TSIH with MaxConnections=1) or it was closed meanwhile.
     */
    TargetSession attach(TargetConnection c, SessionParams p, PortalGroup group, int window) {
        List<TargetSession> replaced = new ArrayList<>();
        TargetSession s = new TargetSession(p, group, window);
        synchronized (this) {
            if (byTsih.containsKey(p.tsih())) {
                return null;
            }
            for (TargetSession old : byTsih.values()) {
                if (old.reinstatedBy(p)) {
                    replaced.add(old);
                    byTsih.remove(old.tsih(), old);
                }
            }
            byTsih.put(p.tsih(), s);
        }
        counters.add(TargetCounter.REINSTATEMENTS, replaced.size());
        replaced.forEach(TargetSession::close);
        return s.add(c) ? s : null;
    }

    /** A connection went down: the session ends with its last connection (ERL 0: no connection recovery). */
    void detach(TargetConnection c) {
        TargetSession s = c.session();
        if (s != null && s.remove(c)) {
            byTsih.remove(s.tsih(), s);
            s.close();
        }
    }

    boolean exists(long isid, int tsih) {
        TargetSession s = byTsih.get(tsih);
        return s != null && s.params().isid() == isid;
    }

    /** Ends every session (the runtime closes). */
    void closeAll() {
        for (TargetSession s : all()) {
            byTsih.remove(s.tsih(), s);
            s.close();
        }
    }

    Collection<TargetSession> all() {
        return List.copyOf(byTsih.values());
    }

    /** The sessions of a target (not discovery sessions). */
    List<TargetSession> of(String targetName) {
        return byTsih.values().stream().filter(s -> !s.discovery())
                .filter(s -> Objects.equals(s.params().targetName(), targetName)).toList();
    }
}
