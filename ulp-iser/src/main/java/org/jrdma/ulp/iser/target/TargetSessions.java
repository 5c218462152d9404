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
 * The runtime's sessions by TSIH ({@code iscsit_session} list of a TPG): TSIH allocation, a login joining a
 * session (its TSIH) or starting one, and ERL 0 session reinstatement: a new session with the ISID and
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
     * The session {@code c} now belongs to: the live one whose TSIH and ISID the login named, or a new one
     * (closing those it reinstates). Null if the session it named closed meanwhile.
     */
    TargetSession attach(TargetConnection c, SessionParams p, PortalGroup group, int window) {
        List<TargetSession> replaced = new ArrayList<>();
        TargetSession s;
        synchronized (this) {
            s = byTsih.get(p.tsih());
            if (s == null || s.params().isid() != p.isid()
                    || !Objects.equals(s.params().initiatorName(), p.initiatorName())) {
                for (TargetSession old : byTsih.values()) {
                    if (old.reinstatedBy(p)) {
                        replaced.add(old);
                        byTsih.remove(old.tsih(), old);
                    }
                }
                s = new TargetSession(p, group, window);
                byTsih.put(p.tsih(), s);
            }
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
