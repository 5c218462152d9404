package org.jrdma.ulp.ipoib.impl;

import org.jrdma.ulp.ipoib.IpoibMode;

/**
 * Connected mode's settings for every interface of a client.
 *
 * @param mode        the mode new interfaces start in (Linux's default in recent kernels: datagram)
 * @param rxTimeoutMs a passive connection without traffic this long is closed ({@code IPOIB_CM_RX_TIMEOUT}, 512 s)
 * @param fallbackMs  after a REJ or a failed connection attempt, a peer is reached by datagram for this long
 */
record CmOptions(IpoibMode mode, long rxTimeoutMs, long fallbackMs) {
    static final CmOptions DEFAULT = new CmOptions(IpoibMode.DATAGRAM, 512_000, 60_000);

    CmOptions {
        if (rxTimeoutMs <= 0 || fallbackMs < 0) {
            throw new IllegalArgumentException("rxTimeoutMs " + rxTimeoutMs + ", fallbackMs " + fallbackMs);
        }
    }
}
