package org.jrdma.log.impl;

/**
 * When the System.Logger bridge asks the Log Service for a logger's level again. Felix Log computes a level
 * per call from the Log Admin contexts (several microseconds, measured), too slow for the call sites that ask
 * {@code isLoggable(DEBUG)} per packet; {@link OsgiSystemLogger} keeps the level until the clock ticks: every
 * second (a .cfg edit in etc/ takes effect within it) and at once after {@code log:level}.
 */
final class LevelClock {

    private volatile int tick;

    int now() {
        return tick;
    }

    /** Levels may have changed: the next call of every logger asks again. */
    synchronized void advance() {
        tick++;
    }
}
