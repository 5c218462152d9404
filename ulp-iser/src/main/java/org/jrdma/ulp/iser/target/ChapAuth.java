package org.jrdma.ulp.iser.target;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jrdma.ulp.iser.target.PortalGroup.ChapCredentials;

/**
 * The {@code auth} group of a TPG or a node ACL (LIO's {@code auth/} configfs files): CHAP userid and password
 * the initiator must answer, and the mutual pair the target answers with. Empty values are unset. Guarded by
 * the {@link TargetTree}'s state lock.
 */
public final class ChapAuth {
    /** The four parameters, by their targetcli names. */
    public enum Param {
        USERID, PASSWORD, MUTUAL_USERID, MUTUAL_PASSWORD;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Param> of(String key) {
            for (Param p : values()) {
                if (p.key().equals(key)) {
                    return Optional.of(p);
                }
            }
            return Optional.empty();
        }
    }

    private final Object lock;
    private final Map<Param, String> values = new EnumMap<>(Param.class);

    ChapAuth(Object lock) {
        this.lock = lock;
    }

    public String get(Param p) {
        synchronized (lock) {
            return values.getOrDefault(p, "");
        }
    }

    /** Sets one parameter (null or empty: unset); applies to the next login. */
    public void set(Param p, String value) {
        synchronized (lock) {
            values.put(p, value == null ? "" : value);
        }
    }

    /** Whether the mutual pair is set: the target authenticates itself too ("mutual auth"). */
    public boolean mutual() {
        return !get(Param.MUTUAL_USERID).isEmpty();
    }

    public boolean complete() {
        return !get(Param.USERID).isEmpty() && !get(Param.PASSWORD).isEmpty();
    }

    /** The secrets for the login; userid/password empty strings when unset, so the CHAP exchange fails. */
    ChapCredentials credentials() {
        return mutual()
                ? new ChapCredentials(get(Param.USERID), get(Param.PASSWORD), get(Param.MUTUAL_USERID),
                        get(Param.MUTUAL_PASSWORD))
                : new ChapCredentials(get(Param.USERID), get(Param.PASSWORD), null, null);
    }
}
