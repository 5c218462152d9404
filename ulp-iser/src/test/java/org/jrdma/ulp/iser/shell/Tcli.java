package org.jrdma.ulp.iser.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jrdma.ulp.iser.target.SessionInfo;
import org.jrdma.ulp.iser.target.TargetTree;

/** Test helper: runs targetcli command lines (words split on spaces, as Gogo passes them) on one tree. */
final class Tcli {
    record Result(int status, String out, String err) {
    }

    final TargetTree tree;
    /** What {@code sessions} lists. */
    List<SessionInfo> sessions = List.of();

    Tcli(TargetTree tree) {
        this.tree = tree;
    }

    Result run(String line) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        StringBuilder err = new StringBuilder();
        String[] words = line.isBlank() ? new String[0] : line.trim().split(" +");
        int status = Targetcli.run(tree, () -> sessions, out, err, words);
        return new Result(status, bytes.toString(StandardCharsets.UTF_8), err.toString());
    }

    /** Runs a line that must succeed; returns its stdout. */
    String ok(String line) {
        Result r = run(line);
        assertEquals("", r.err(), line);
        assertEquals(0, r.status(), line);
        return r.out();
    }

    /** Runs a line that must fail with targetcli's message, printing nothing on stdout. */
    void fails(String line, String message) {
        Result r = run(line);
        assertEquals(1, r.status(), line);
        assertEquals(message + "\n", r.err(), line);
    }
}
