package org.jrdma.ulp.ipoib.impl;

import java.nio.ByteBuffer;

/**
 * The private data of an IPoIB CM REQ and REP (RFC 4755 section 4, Linux's {@code struct ipoib_cm_data}): the
 * sender's UD QPN and its receive MTU (the largest IPoIB frame, header included, it takes), both big-endian.
 */
record CmData(int qpn, int mtu) {
    static final int LEN = 8;

    byte[] encode() {
        return ByteBuffer.allocate(LEN).putInt(qpn).putInt(mtu).array();
    }

    /** The first 8 bytes of a message's private data; null if it has fewer (a peer that is not IPoIB). */
    static CmData decode(byte[] privateData) {
        if (privateData.length < LEN) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(privateData);
        return new CmData(b.getInt() & 0xffffff, b.getInt());
    }
}
