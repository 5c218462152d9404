package org.jrdma.ib.core.cli;

/** How a tool busy-polls a completion queue without starving the device it waits for. */
public final class Polling {
    /** Empty polls spent spinning before the poller starts yielding. */
    static final int SPIN_POLLS = 64;

    private Polling() {
    }

    /**
     * One empty poll of a busy-polling loop. The C tools spin on their own core while the HCA moves
     * the data; here the "HCA" may need this very CPU (a software device's engine thread, the peer in
     * the same JVM), so after a short spin the poller yields. Also where an interrupt ends the wait
     * ({@link Exit#interrupted()}).
     */
    public static void idle(int emptyPolls) {
        Exit.checkInterrupt();
        if (emptyPolls < SPIN_POLLS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }
}
