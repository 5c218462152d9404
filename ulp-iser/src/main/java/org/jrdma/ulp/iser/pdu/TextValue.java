package org.jrdma.ulp.iser.pdu;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The value types of RFC 7143 section 6.1 and 13: numerical (decimal or {@code 0x} hex, up to 64 bits), boolean
 * {@code Yes}/{@code No}, lists (comma-separated, in preference order), and the three special answers.
 */
public final class TextValue {

    /** The answers a negotiation may give instead of a value (RFC 7143 section 6.2). */
    public enum Special {
        IRRELEVANT("Irrelevant"), NOT_UNDERSTOOD("NotUnderstood"), REJECT("Reject");

        private final String text;

        Special(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    private TextValue() {
    }

    /** The special answer {@code value} is, if any. */
    public static Optional<Special> special(String value) {
        return Arrays.stream(Special.values()).filter(s -> s.text.equals(value)).findFirst();
    }

    /** A numerical value: decimal, or hex with {@code 0x}; unsigned, at most 64 bits. */
    public static long numeric(String key, String value) throws IscsiProtocolException {
        boolean hex = value.startsWith("0x") || value.startsWith("0X");
        String digits = hex ? value.substring(2) : value;
        if (digits.isEmpty() || digits.length() > (hex ? 16 : 20)) {
            throw IscsiProtocolException.field(key + "=" + value + " is not a number");
        }
        try {
            return Long.parseUnsignedLong(digits, hex ? 16 : 10);
        } catch (NumberFormatException e) {
            throw IscsiProtocolException.field(key + "=" + value + " is not a number");
        }
    }

    public static boolean bool(String key, String value) throws IscsiProtocolException {
        return switch (value) {
            case "Yes" -> true;
            case "No" -> false;
            default -> throw IscsiProtocolException.field(key + "=" + value + " is not Yes or No");
        };
    }

    public static String bool(boolean value) {
        return value ? "Yes" : "No";
    }

    /** A list value's items, in the sender's order of preference. */
    public static List<String> list(String key, String value) throws IscsiProtocolException {
        List<String> items = Arrays.asList(value.split(",", -1));
        if (items.stream().anyMatch(String::isEmpty)) {
            throw IscsiProtocolException.field(key + "=" + value + " has an empty list item");
        }
        return items;
    }
}
