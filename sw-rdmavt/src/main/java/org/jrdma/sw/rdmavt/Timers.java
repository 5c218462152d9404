package org.jrdma.sw.rdmavt;

/** The IB timer encodings: the RNR NAK timer table and the local ACK timeout. */
public final class Timers {
    /** IBTA table 45 (rxe's {@code rnrnak_usec}): code 0..31 to microseconds; 0 is the longest. */
    private static final int[] RNR_NAK_USEC = {655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
        1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840,
        245760, 327680, 491520};

    private Timers() {
    }

    public static long rnrNakNanos(int code) {
        return RNR_NAK_USEC[code & 31] * 1000L;
    }

    /** Local ACK timeout: 4.096 us * 2^timeout; 0 means wait forever (returns 0). */
    public static long ackTimeoutNanos(int timeout) {
        return timeout == 0 ? 0 : 4096L << Math.min(timeout, 31);
    }
}
