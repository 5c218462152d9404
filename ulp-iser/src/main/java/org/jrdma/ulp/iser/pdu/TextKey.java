package org.jrdma.ulp.iser.pdu;

/**
 * One {@code key=value} pair (RFC 7143 section 6.1): a key name of up to 63 characters from {@code a-z A-Z 0-9
 * . - + @ _}, a UTF-8 value (see {@link TextValue} for its types).
 */
public record TextKey(String key, String value) {
    static final int MAX_KEY = 63;

    public TextKey {
        String bad = checkKey(key);
        if (bad != null) {
            throw new IllegalArgumentException(bad);
        }
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("value of " + key + " holds a NUL");
        }
    }

    /** Why {@code key} is not a key name, or null. */
    static String checkKey(String key) {
        if (key.isEmpty() || key.length() > MAX_KEY) {
            return "key name of " + key.length() + " characters";
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || ".-+@_".indexOf(c) >= 0;
            if (!ok) {
                return "key name '" + key + "' holds '" + c + "'";
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}
