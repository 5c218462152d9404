package org.jrdma.ulp.iser.target;

import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * iSCSI names as rtslib-fb checks and normalizes them ({@code utils.normalize_wwn} with the iscsi fabric's
 * types iqn, naa, eui): lower-cased and trimmed; naa/eui lose {@code 0x}, dashes and colons. One check
 * stricter than rtslib: the IQN month is 01..12 (rtslib takes 00..19).
 */
public enum Wwn {
    IQN("iqn", Pattern.compile("iqn\\.[0-9]{4}-(0[1-9]|1[0-2])\\..*\\..*")),
    NAA("naa", Pattern.compile("naa\\.[125c-fC-F][0-9a-fA-F]{15}")),
    EUI("eui", Pattern.compile("eui\\.[0-9a-f]{16}"));

    private final String type;
    private final Predicate<String> valid;

    Wwn(String type, Pattern pattern) {
        this.type = type;
        Predicate<String> matches = w -> pattern.matcher(w).matches();
        // rtslib: an IQN has no space and no underscore
        this.valid = "iqn".equals(type) ? matches.and(w -> w.indexOf(' ') < 0 && w.indexOf('_') < 0) : matches;
    }

    /** The normalized name, or the rtslib error {@code WWN not valid as: iqn, naa, eui}. */
    public static String normalize(String wwn) throws TargetConfigException {
        if (wwn != null) {
            for (Wwn t : values()) {
                String clean = t.cleanse(wwn);
                if (t.valid.test(clean)) {
                    return clean;
                }
            }
        }
        throw new TargetConfigException("WWN not valid as: " + String.join(", ", types()));
    }

    /** The key an iSCSI name is looked up by: names compare case-insensitively (RFC 3722 stringprep). */
    static String key(String name) {
        return name.strip().toLowerCase(Locale.ROOT);
    }

    /** Whether {@code wwn} is a valid iSCSI name as given (already normalized). */
    public static boolean isValid(String wwn) {
        try {
            return normalize(wwn).equals(wwn);
        } catch (TargetConfigException e) {
            return false;
        }
    }

    private String cleanse(String wwn) {
        String w = wwn.strip().toLowerCase(Locale.ROOT);
        if (this == IQN) {
            return w;
        }
        if (w.startsWith("0x")) {
            w = w.substring(2);
        }
        w = w.replace("-", "").replace(":", "");
        return w.startsWith("naa.") || w.startsWith("eui.") ? w : type + "." + w;
    }

    private static List<String> types() {
        return List.of(IQN.type, NAA.type, EUI.type);
    }
}
