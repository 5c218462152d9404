package org.jrdma.ib.core.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * glibc's {@code getopt_long}, so that options parse and fail exactly as in the C tools: arguments
 * are permuted (options may follow operands), {@code --} ends the options, long options may be
 * abbreviated, and the diagnostics have glibc 2.26+'s wording. An optstring starting with ':'
 * suppresses the diagnostics and reports a missing argument as ':'.
 * <p>Diagnostics are appended to {@code stderr} rather than printed, so a tool can put them into
 * its {@link CommandFailure}. Shared by every jrdma tool (ibv_devinfo, rdma, ibv_*_pingpong, ...).
 */
public final class Getopt {
    public static final int NO_ARGUMENT = 0;
    public static final int REQUIRED_ARGUMENT = 1;

    /** {@code struct option}. */
    public record LongOption(String name, int hasArg, char val) {
    }

    private final String progname;
    private final String[] argv;
    private final String optstring;
    private final boolean silent;
    private final LongOption[] longopts;
    private final StringBuilder stderr;
    private final List<String> operands = new ArrayList<>();
    private int optind;
    /** Position inside a cluster of short options ({@code -vl}); 0 when between arguments. */
    private int nextchar;
    private boolean done;
    private boolean terseAmbiguity;

    /** The argument of the option just returned. */
    public String optarg;
    /** The option character that caused the last error. */
    public int optopt;

    public Getopt(String progname, String[] argv, String optstring, LongOption[] longopts, StringBuilder stderr) {
        this.progname = progname;
        this.argv = argv;
        this.silent = optstring.startsWith(":");
        this.optstring = silent ? optstring.substring(1) : optstring;
        this.longopts = longopts;
        this.stderr = stderr;
    }

    /**
     * Reports an ambiguous long option without the list of possibilities ("option '--x' is ambiguous"), glibc's
     * wording where it does not list them; perftest's parser prints it so.
     */
    public Getopt terseAmbiguity() {
        terseAmbiguity = true;
        return this;
    }

    /** The next option character, '?' or ':' on an error, -1 when no option is left. */
    public int next() {
        optarg = null;
        if (nextchar == 0) {
            while (true) {
                if (done || optind >= argv.length) {
                    done = true;
                    return -1;
                }
                String a = argv[optind];
                if (a.equals("--")) {
                    optind++;
                    while (optind < argv.length) {
                        operands.add(argv[optind++]);
                    }
                    done = true;
                    return -1;
                }
                if (a.length() < 2 || a.charAt(0) != '-') {
                    operands.add(a); // permuted to the end, as glibc does
                    optind++;
                    continue;
                }
                if (a.startsWith("--")) {
                    optind++;
                    return longOption(a.substring(2));
                }
                nextchar = 1;
                break;
            }
        }
        return shortOption();
    }

    /** The non-option arguments, in order; complete once {@link #next()} returned -1. */
    public List<String> operands() {
        return operands;
    }

    private int shortOption() {
        String a = argv[optind];
        char c = a.charAt(nextchar++);
        boolean last = nextchar >= a.length();
        int at = c == ':' ? -1 : optstring.indexOf(c);
        if (at < 0) {
            optopt = c;
            advanceIf(last);
            if (!silent) {
                stderr.append(progname).append(": invalid option -- '").append(c).append("'\n");
            }
            return '?';
        }
        boolean takesArg = at + 1 < optstring.length() && optstring.charAt(at + 1) == ':';
        if (!takesArg) {
            advanceIf(last);
            return c;
        }
        if (!last) {
            optarg = a.substring(nextchar);
            advanceIf(true);
            return c;
        }
        advanceIf(true);
        if (optind < argv.length) {
            optarg = argv[optind++];
            return c;
        }
        optopt = c;
        if (silent) {
            return ':';
        }
        stderr.append(progname).append(": option requires an argument -- '").append(c).append("'\n");
        return '?';
    }

    private void advanceIf(boolean last) {
        if (last) {
            nextchar = 0;
            optind++;
        }
    }

    private int longOption(String text) {
        int eq = text.indexOf('=');
        String name = eq < 0 ? text : text.substring(0, eq);
        LongOption found = null;
        List<LongOption> candidates = new ArrayList<>();
        for (LongOption o : longopts) {
            if (o.name().equals(name)) {
                found = o;
                candidates.clear();
                break;
            }
            if (o.name().startsWith(name)) {
                candidates.add(o);
            }
        }
        if (found == null && !candidates.isEmpty()) {
            found = candidates.get(0);
            for (LongOption o : candidates) {
                if (o.hasArg() != found.hasArg() || o.val() != found.val()) {
                    optopt = 0;
                    if (!silent) {
                        ambiguous(text, candidates);
                    }
                    return '?';
                }
            }
        }
        if (found == null) {
            optopt = 0;
            if (!silent) {
                stderr.append(progname).append(": unrecognized option '--").append(text).append("'\n");
            }
            return '?';
        }
        if (eq >= 0) {
            if (found.hasArg() == NO_ARGUMENT) {
                optopt = found.val();
                if (!silent) {
                    stderr.append(progname).append(": option '--").append(found.name())
                            .append("' doesn't allow an argument\n");
                }
                return '?';
            }
            optarg = text.substring(eq + 1);
        } else if (found.hasArg() == REQUIRED_ARGUMENT) {
            if (optind >= argv.length) {
                optopt = found.val();
                if (silent) {
                    return ':';
                }
                stderr.append(progname).append(": option '--").append(found.name())
                        .append("' requires an argument\n");
                return '?';
            }
            optarg = argv[optind++];
        }
        return found.val();
    }

    private void ambiguous(String text, List<LongOption> candidates) {
        stderr.append(progname).append(": option '--").append(text).append("' is ambiguous");
        if (!terseAmbiguity) {
            stderr.append("; possibilities:");
            for (LongOption p : candidates) {
                stderr.append(" '--").append(p.name()).append('\'');
            }
        }
        stderr.append('\n');
    }
}
