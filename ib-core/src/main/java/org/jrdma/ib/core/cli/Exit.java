package org.jrdma.ib.core.cli;

/**
 * A tool's {@code exit(status)} from wherever it is: thrown by the tool, caught by its {@code main},
 * which releases what the run allocated and returns {@link #status()}. No stack trace: it is control
 * flow, not an error.
 * <p>A run never outlives its thread's interrupt (Ctrl-C in Gogo, a stopping bundle): a wait that sees
 * it throws {@link #interrupted()}, status {@value #INTERRUPTED} as for a process killed by SIGINT.
 */
public final class Exit extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The exit status of a run ended by an interrupt (128 + SIGINT). */
    public static final int INTERRUPTED = 130;

    private final int status;

    private Exit(int status) {
        super(null, null, false, false);
        this.status = status;
    }

    /** {@code exit(status)}: {@code throw exit(1)}. */
    public static Exit exit(int status) {
        return new Exit(status);
    }

    /** The exit of an interrupted run; keeps the thread's interrupt flag set for the caller. */
    public static Exit interrupted() {
        Thread.currentThread().interrupt();
        return new Exit(INTERRUPTED);
    }

    /** Throws {@link #interrupted()} if the calling thread is interrupted. */
    public static void checkInterrupt() {
        if (Thread.currentThread().isInterrupted()) {
            throw interrupted();
        }
    }

    /** The status the tool exits with. */
    public int status() {
        return status;
    }
}
