package org.jrdma.ib.core.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.cli.Getopt.LongOption;
import org.junit.jupiter.api.Test;

/** glibc getopt_long behaviour the tools rely on. */
class GetoptTest {
    static final LongOption[] LONGS = {
        new LongOption("ib-dev", Getopt.REQUIRED_ARGUMENT, 'd'),
        new LongOption("verbose", Getopt.NO_ARGUMENT, 'v'),
    };

    static String parse(String optstring, String... argv) {
        StringBuilder err = new StringBuilder();
        Getopt g = new Getopt("prog", argv, optstring, LONGS, err);
        List<String> seen = new ArrayList<>();
        for (int c; (c = g.next()) != -1; ) {
            seen.add((char) c + (g.optarg == null ? "" : "=" + g.optarg));
        }
        return seen + " " + g.operands() + " " + err.toString().replace("\n", "|");
    }

    @Test
    void clustersAttachedArgumentsAndPermutation() {
        assertEquals("[v, d=mlx0] [] ", parse("d:v", "-vdmlx0"));
        assertEquals("[v, d=mlx0] [] ", parse("d:v", "-vd", "mlx0"));
        assertEquals("[d=-v] [] ", parse("d:v", "-d", "-v"));
        assertEquals("[v, d=x] [a, b] ", parse("d:v", "a", "-v", "b", "--ib-dev", "x"));
        assertEquals("[v] [-d, x] ", parse("d:v", "-v", "--", "-d", "x"));
        assertEquals("[] [-] ", parse("d:v", "-"));
    }

    @Test
    void diagnosticsUnlessTheOptstringStartsWithAColon() {
        assertEquals("[?] [] prog: invalid option -- 'q'|", parse("d:v", "-q"));
        assertEquals("[?] [] ", parse(":d:v", "-q"));
        assertEquals("[:] [] ", parse(":d:v", "-d"));
        assertEquals("[:] [] ", parse(":d:v", "--ib-dev"));
        assertEquals("[v, ?] [] prog: option requires an argument -- 'd'|", parse("d:v", "-vd"));
    }

    @Test
    void longOptionsByUniquePrefix() {
        assertEquals("[v] [] ", parse("d:v", "--verb"));
        assertEquals("[d=x] [] ", parse("d:v", "--ib=x"));
        assertEquals("[?] [] prog: option '--verbose' doesn't allow an argument|", parse("d:v", "--ver=1"));
        assertEquals("[?] [] prog: unrecognized option '--x=1'|", parse("d:v", "--x=1"));
    }

    @Test
    void ambiguousLongOptionsWithOrWithoutThePossibilities() {
        LongOption[] longs = {
            new LongOption("report-cycles", Getopt.NO_ARGUMENT, 'C'),
            new LongOption("report-gbits", Getopt.NO_ARGUMENT, 'g'),
            new LongOption("size", Getopt.REQUIRED_ARGUMENT, 's'),
        };
        StringBuilder err = new StringBuilder();
        Getopt g = new Getopt("prog", new String[] {"--rep", "--report-c"}, "Cgs:", longs, err);
        assertEquals('?', g.next());
        assertEquals("prog: option '--rep' is ambiguous; possibilities: '--report-cycles' '--report-gbits'\n",
                err.toString());
        assertEquals('C', g.next());
        assertEquals(-1, g.next());

        err.setLength(0);
        g = new Getopt("prog", new String[] {"--rep=1", "--si", "8"}, "Cgs:", longs, err).terseAmbiguity();
        assertEquals('?', g.next());
        assertEquals("prog: option '--rep=1' is ambiguous\n", err.toString());
        assertEquals('s', g.next());
        assertEquals("8", g.optarg);
        assertEquals(-1, g.next());

        err.setLength(0);
        g = new Getopt("prog", new String[] {"--rep"}, ":Cgs:", longs, err).terseAmbiguity();
        assertEquals('?', g.next());
        assertEquals("", err.toString(), "':' silences it too");
    }
}
