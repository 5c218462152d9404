package org.jrdma.ulp.iser.target;

import java.util.Locale;
import java.util.Optional;

/**
 * The TPG attributes of LIO's {@code tpgt_N/attrib/} (iscsi_target_tpg.c) with the kernel's defaults and
 * ranges; targetcli sets {@code authentication=0} when it creates a TPG. Out-of-range values fail as the
 * configfs write does (EINVAL).
 */
public enum TpgAttribute {
    AUTHENTICATION(1, 0, 1),
    CACHE_DYNAMIC_ACLS(0, 0, 1),
    DEFAULT_CMDSN_DEPTH(64, 1, 512),
    DEFAULT_ERL(0, 0, 2),
    DEMO_MODE_DISCOVERY(1, 0, 1),
    DEMO_MODE_WRITE_PROTECT(1, 0, 1),
    FABRIC_PROT_TYPE(0, 0, 3),
    GENERATE_NODE_ACLS(0, 0, 1),
    LOGIN_KEYS_WORKAROUND(1, 0, 1),
    LOGIN_TIMEOUT(15, 2, 30),
    NETIF_TIMEOUT(2, 2, 15),
    PROD_MODE_WRITE_PROTECT(0, 0, 1),
    T10_PI(0, 0, 1),
    TPG_ENABLED_SENDTARGETS(1, 0, 1);

    private final int defaultValue;
    private final int min;
    private final int max;

    TpgAttribute(int defaultValue, int min, int max) {
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
    }

    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    public int defaultValue() {
        return defaultValue;
    }

    boolean accepts(int value) {
        return value >= min && value <= max;
    }

    public static Optional<TpgAttribute> of(String key) {
        for (TpgAttribute a : values()) {
            if (a.key().equals(key)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }
}
