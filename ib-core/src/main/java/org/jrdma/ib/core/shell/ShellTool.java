package org.jrdma.ib.core.shell;

import java.io.PrintStream;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;

/**
 * A Linux command-line tool re-implemented on {@link IbCore}. What the real tool writes to stdout
 * goes to {@code out} as it is produced. What it writes to stderr is collected: if the tool then
 * fails, that text becomes the {@link CommandFailure} message, so the {@code ./jrdma} launcher prints
 * it exactly once; if the tool succeeds anyway (iproute2's {@code Unknown parameter 'x'.}), it is
 * printed to {@code err} at the end.
 */
abstract class ShellTool {

    /**
     * Runs the tool: returns normally for exit status 0, else throws {@link CommandFailure} with the
     * exit status and the stderr text (which is not printed). This is what the Gogo commands call.
     */
    abstract void execute(IbCore core, PrintStream out, PrintStream err, String... args);

    /**
     * Runs the tool as a process would: stderr text printed to {@code err}, the exit status returned.
     * For tests and embedding.
     */
    final int run(IbCore core, PrintStream out, PrintStream err, String... args) {
        try {
            execute(core, out, err, args);
            return 0;
        } catch (CommandFailure f) {
            if (f.getMessage() != null && !f.getMessage().isEmpty()) {
                err.println(f.getMessage());
            }
            return f.exitStatus();
        } finally {
            out.flush();
            err.flush();
        }
    }

    /**
     * Ends a run the way {@code exit(status)} would: status is taken modulo 256 (C's {@code return -1}
     * is 255). Non-zero throws; zero prints the collected stderr text.
     */
    static void exit(int status, StringBuilder stderr, PrintStream err) {
        int code = status & 0xff;
        if (code != 0) {
            throw new CommandFailure(code, chomp(stderr));
        }
        if (stderr.length() > 0) {
            err.print(stderr);
            err.flush();
        }
    }

    /** The launcher adds the final newline itself. */
    private static String chomp(StringBuilder sb) {
        int end = sb.length();
        if (end > 0 && sb.charAt(end - 1) == '\n') {
            end--;
        }
        return sb.substring(0, end);
    }
}
