package org.jrdma.ib.core.cli;

/**
 * Thrown by a jrdma shell command to fail with a message and an exit status, the way a Linux tool
 * prints to stderr and exits non-zero. The {@code ./jrdma} launcher prints {@link #getMessage()} and
 * exits with {@link #exitStatus()}; any other exception exits with status 1.
 */
public class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitStatus;

    public CommandFailure(int exitStatus, String message) {
        super(message);
        if (exitStatus == 0) {
            throw new IllegalArgumentException("a failure needs a non-zero exit status");
        }
        this.exitStatus = exitStatus;
    }

    public CommandFailure(String message) {
        this(1, message);
    }

    public int exitStatus() {
        return exitStatus;
    }
}
