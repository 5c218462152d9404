package org.jrdma.ib.cm.wire;

/**
 * The 5-bit IB timeout code of CM messages (CM response timeouts, local ACK timeout, target ACK delay, MRA
 * service timeout): 4.096 us * 2^t.
 */
public final class CmTimeout {
    /** The largest code (5 bits). */
    public static final int MAX = 31;

    private CmTimeout() {
    }

    /**
     * {@code cm_convert_to_ms}: the approximation cm.c uses for its timers, {@code 1 << max(t - 8, 0)} ms
     * (4.096 us * 2^8 is about 1 ms). Code 20, rdma_cm's {@code CMA_CM_RESPONSE_TIMEOUT}, gives 4096 ms.
     */
    public static int toMs(int t) {
        return 1 << Math.max(check(t) - 8, 0);
    }

    /** The exact value, 4096 ns * 2^t, in nanoseconds (code 0 is 4.096 us; cm.c treats it as 1 ms via {@link #toMs}). */
    public static long toNanos(int t) {
        return 4096L << check(t);
    }

    /**
     * {@code cm_ack_timeout}: the local ACK timeout a REQ carries for a CA ACK delay and a path packet life time,
     * 4.096 us * 2^t = 4.096 us * 2^ack_delay + 2 * 4.096 us * 2^life_time, rounded as cm.c does: the larger
     * of ack_delay and life_time + 1, plus one if the other is within 50%; at most 31.
     */
    public static int ackTimeout(int caAckDelay, int packetLifeTime) {
        int ackTimeout = packetLifeTime + 1;
        if (ackTimeout >= caAckDelay) {
            ackTimeout += caAckDelay >= ackTimeout - 1 ? 1 : 0;
        } else {
            ackTimeout = caAckDelay + (ackTimeout >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(31, ackTimeout);
    }

    private static int check(int t) {
        if (t < 0 || t > MAX) {
            throw new IllegalArgumentException("an IB timeout code is 0..31, not " + t);
        }
        return t;
    }
}
