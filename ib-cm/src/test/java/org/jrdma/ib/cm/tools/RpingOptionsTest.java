package org.jrdma.ib.cm.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.cli.CommandFailure;
import org.junit.jupiter.api.Test;

/** Options that fail before any CM call: rping's texts, on the right stream, and its statuses. */
class RpingOptionsTest {
    static final String USAGE = "rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n"
            + "rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
            + "\t-c\t\tclient side\n"
            + "\t-I\t\tSource address to bind to for client.\n"
            + "\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0\n"
            + "\t-v\t\tdisplay ping data to stdout\n"
            + "\t-V\t\tvalidate ping data\n"
            + "\t-d\t\tdebug printfs\n"
            + "\t-S size \tping data size\n"
            + "\t-C count\tping count times\n"
            + "\t-a addr\t\taddress\n"
            + "\t-p port\t\tport\n"
            + "\t-P\t\tpersistent server mode allowing multiple connections\n"
            + "\t-q\t\tuse self-created, self-modified QP\n";

    /** A CM that must not be used. */
    static final RdmaCm NO_CM = (handler, ps) -> {
        throw new AssertionError("the CM was used");
    };

    record Result(int status, String out, String err) {
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Rping.run(NO_CM, new PrintStream(out, true), new PrintStream(err, true), args);
        return new Result(status, out.toString(StandardCharsets.ISO_8859_1), err.toString(StandardCharsets.ISO_8859_1));
    }

    @Test
    void neitherServerNorClientPrintsTheUsage() {
        assertEquals(new Result(22, USAGE, ""), run());
        assertEquals(new Result(22, USAGE, ""), run("-v", "-a", "127.0.0.1"));
    }

    @Test
    void anUnknownOptionPrintsTheUsageOnly() {
        // opterr = 0: no getopt diagnostic
        assertEquals(new Result(22, USAGE, ""), run("-s", "-x"));
        assertEquals(new Result(22, USAGE, ""), run("-s", "-S"));
        // -t is in the optstring but not handled
        assertEquals(new Result(22, USAGE, ""), run("-s", "-t", "5"));
    }

    @Test
    void sizesOutOfRange() {
        assertEquals(new Result(22, "", "Invalid size 22 (valid range is 23 to 65536)\n"), run("-s", "-S", "22"));
        assertEquals(new Result(22, "", "Invalid size 65536 (valid range is 23 to 65536)\n"),
                run("-s", "-S", "65536"));
        assertEquals(new Result(22, "", "Invalid size 0 (valid range is 23 to 65536)\n"), run("-c", "-S", "abc"));
        assertEquals(new Result(22, "", "Invalid size -5 (valid range is 23 to 65536)\n"), run("-c", "-S", "-5"));
        // every bad option is reported, the status is the last one's
        assertEquals(new Result(22, "", "Invalid size 1 (valid range is 23 to 65536)\nInvalid count -1\n"),
                run("-c", "-S", "1", "-C", "-1"));
    }

    @Test
    void aNegativeCount() {
        assertEquals(new Result(22, "", "Invalid count -1\n"), run("-c", "-C", "-1"));
    }

    @Test
    void debugLinesOfTheOptionsGoToStdout() {
        Result r = run("-d", "-p", "99999", "-S", "5", "-C", "3", "-v", "-V");
        assertEquals(22, r.status());
        assertEquals("port 99999\ncount 3\nverbose\nvalidate data\n", r.out()); // ret set: no usage
        assertEquals("Invalid size 5 (valid range is 23 to 65536)\n", r.err());
    }

    @Test
    void executeThrowsWithTheStderrText() {
        CommandFailure f = assertThrows(CommandFailure.class,
                () -> Rping.execute(NO_CM, new PrintStream(new ByteArrayOutputStream()), System.err, "-s", "-S", "1"));
        assertEquals(22, f.exitStatus());
        assertEquals("Invalid size 1 (valid range is 23 to 65536)", f.getMessage());
    }
}
