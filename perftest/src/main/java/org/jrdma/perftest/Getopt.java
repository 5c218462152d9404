package org.jrdma.perftest;

import java.util.ArrayList;
import java.util.List;

/**
 * glibc's {@code getopt_long} over perftest's option table: short letters bundled or with their
 * argument attached, {@code --name}, {@code --name=value} and unambiguous prefixes of names,
 * {@code --} ending the options, and getopt's own messages for what it refuses.
 */
final class Getopt {
    /** What {@link #parse} returns after getopt printed its message (perftest then prints usage). */
    static final int INVALID = -1;

    /** Called for each option found, in order; non-zero stops the parse and is returned. */
    interface OnOption {
        int apply(Params.Option option, String value);
    }

    private Getopt() {
    }

    /** 0, {@link #INVALID}, or what {@code onOption} returned; the words that are not options go to {@code operands}. */
    static int parse(String argv0, List<Params.Option> table, String[] args, List<String> operands, StringBuilder err,
            OnOption onOption) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                for (i++; i < args.length; i++) {
                    operands.add(args[i]);
                }
                break;
            }
            int r;
            if (a.startsWith("--")) {
                int[] used = {0};
                r = longOption(argv0, table, a, i + 1 < args.length ? args[i + 1] : null, used, err, onOption);
                i += used[0];
            } else if (a.startsWith("-") && a.length() > 1) {
                int[] used = {0};
                r = shortOptions(argv0, table, a, i + 1 < args.length ? args[i + 1] : null, used, err, onOption);
                i += used[0];
            } else {
                operands.add(a);
                r = 0;
            }
            if (r != 0) {
                return r;
            }
        }
        return 0;
    }

    /** {@code --name[=value]}; {@code used[0]} is set to 1 when {@code next} was its argument. */
    private static int longOption(String argv0, List<Params.Option> table, String a, String next, int[] used,
            StringBuilder err, OnOption onOption) {
        String name = a.substring(2);
        String value = null;
        int eq = name.indexOf('=');
        if (eq >= 0) {
            value = name.substring(eq + 1);
            name = name.substring(0, eq);
        }
        Params.Option match = null;
        List<Params.Option> prefixed = new ArrayList<>();
        for (Params.Option o : table) {
            if (o.name().equals(name)) {
                match = o;
                break;
            }
            if (o.name().startsWith(name)) {
                prefixed.add(o);
            }
        }
        if (match == null && prefixed.size() == 1) {
            match = prefixed.get(0);
        }
        if (match == null) {
            err.append(argv0).append(prefixed.size() > 1 ? ": option '" : ": unrecognized option '").append(a)
                    .append(prefixed.size() > 1 ? "' is ambiguous\n" : "'\n");
            return INVALID;
        }
        if (match.hasArg() && value == null) {
            if (next == null) {
                err.append(argv0).append(": option '--").append(match.name()).append("' requires an argument\n");
                return INVALID;
            }
            value = next;
            used[0] = 1;
        } else if (!match.hasArg() && value != null) {
            err.append(argv0).append(": option '--").append(match.name()).append("' doesn't allow an argument\n");
            return INVALID;
        }
        return onOption.apply(match, value);
    }

    /** {@code -abc}, {@code -n5}, {@code -n 5}; {@code used[0]} is set to 1 when {@code next} was an argument. */
    private static int shortOptions(String argv0, List<Params.Option> table, String a, String next, int[] used,
            StringBuilder err, OnOption onOption) {
        for (int j = 1; j < a.length(); j++) {
            char c = a.charAt(j);
            Params.Option o = byLetter(table, c);
            if (o == null) {
                err.append(argv0).append(": invalid option -- '").append(c).append("'\n");
                return INVALID;
            }
            String value = null;
            if (o.hasArg()) {
                if (j + 1 < a.length()) {
                    value = a.substring(j + 1);
                } else if (next != null) {
                    value = next;
                    used[0] = 1;
                } else {
                    err.append(argv0).append(": option requires an argument -- '").append(c).append("'\n");
                    return INVALID;
                }
                j = a.length();
            }
            int r = onOption.apply(o, value);
            if (r != 0) {
                return r;
            }
        }
        return 0;
    }

    private static Params.Option byLetter(List<Params.Option> table, char c) {
        if (c == '\0') {
            return null;
        }
        for (Params.Option o : table) {
            if (o.letter() == c) {
                return o;
            }
        }
        return null;
    }
}
