package org.jrdma.ib.core.cli;

import java.io.PrintStream;

/**
 * A C tool's {@code main} run as a Gogo command or as a process. The tool writes its stdout to its
 * own stream as it goes and appends its stderr text to a {@link StringBuilder}; its {@code main}
 * returns the C {@code main}'s return value (the exit status is its low byte).
 */
public final class ToolMain {
    private ToolMain() {
    }

    /** The C {@code main}: its stderr text goes to {@code stderr}; never throws for what the tool reports. */
    @FunctionalInterface
    public interface Main {
        int main(StringBuilder stderr);
    }

    /**
     * As a Gogo command: returns normally for exit status 0 (printing any stderr text to {@code err}),
     * else throws {@link CommandFailure} with the status and the stderr text (without its last
     * newline), which the {@code ./jrdma} launcher prints once.
     */
    public static void execute(PrintStream out, PrintStream err, Main main) {
        StringBuilder stderr = new StringBuilder();
        int status = main.main(stderr) & 0xff;
        out.flush();
        String text;
        synchronized (stderr) { // a tool's other threads append under this lock too
            text = stderr.toString();
        }
        if (status != 0) {
            throw new CommandFailure(status, text.endsWith("\n") ? text.substring(0, text.length() - 1) : text);
        }
        if (!text.isEmpty()) {
            err.print(text);
            err.flush();
        }
    }

    /** As a process: the stderr text printed to {@code err} once {@code main} returns, the exit status returned. */
    public static int run(PrintStream out, PrintStream err, Main main) {
        StringBuilder stderr = new StringBuilder();
        try {
            return main.main(stderr) & 0xff;
        } finally {
            out.flush();
            synchronized (stderr) {
                err.print(stderr);
            }
            err.flush();
        }
    }
}
