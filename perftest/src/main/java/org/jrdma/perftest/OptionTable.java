package org.jrdma.perftest;

import java.util.List;

import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.core.cli.Getopt.LongOption;

/**
 * perftest's option table ({@link Params#OPTIONS}) as glibc's {@code getopt_long} takes it: the optstring of the
 * short letters, the {@code long_options} array, and the loop of {@code parser()} that hands each option found to
 * its case. The parsing and its messages are ib-core's {@link Getopt}, with perftest's terse wording for an
 * ambiguous long option.
 */
final class OptionTable {
    /** What {@link #parse} returns after getopt printed its message (perftest then prints usage). */
    static final int INVALID = -1;
    /** A long option's {@code val}: its row, above every letter, so that a long-only option is found too. */
    private static final int LONG_VAL = 0x100;

    /** Called for each option found, in order; non-zero stops the parse and is returned. */
    interface OnOption {
        int apply(Params.Option option, String value);
    }

    private OptionTable() {
    }

    /** 0, {@link #INVALID}, or what {@code onOption} returned; the words that are not options go to {@code operands}. */
    static int parse(String argv0, List<Params.Option> table, String[] args, List<String> operands, StringBuilder err,
            OnOption onOption) {
        StringBuilder optstring = new StringBuilder();
        LongOption[] longopts = new LongOption[table.size()];
        for (int i = 0; i < longopts.length; i++) {
            Params.Option o = table.get(i);
            if (o.letter() != '\0') {
                optstring.append(o.letter()).append(o.hasArg() ? ":" : "");
            }
            longopts[i] = new LongOption(o.name(), o.hasArg() ? Getopt.REQUIRED_ARGUMENT : Getopt.NO_ARGUMENT,
                    (char) (LONG_VAL + i));
        }
        Getopt g = new Getopt(argv0, args, optstring.toString(), longopts, err).terseAmbiguity();
        for (int c; (c = g.next()) != -1; ) {
            if (c == '?') {
                return INVALID;
            }
            int r = onOption.apply(c >= LONG_VAL ? table.get(c - LONG_VAL) : byLetter(table, (char) c), g.optarg);
            if (r != 0) {
                return r;
            }
        }
        operands.addAll(g.operands());
        return 0;
    }

    private static Params.Option byLetter(List<Params.Option> table, char c) {
        for (Params.Option o : table) {
            if (o.letter() == c) {
                return o;
            }
        }
        throw new IllegalStateException("getopt returned '" + c + "', not in the optstring");
    }
}
