package org.jrdma.ib.tools;

/** glibc's {@code inet_ntop(AF_INET6)}, as the pingpong tools print a GID. */
final class InetNtop {
    private InetNtop() {
    }

    /** {@code inet_ntop(AF_INET6, raw, ...)} as glibc writes it (RFC 2373 compression, embedded IPv4). */
    static String inetNtop6(byte[] raw) {
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = ((raw[2 * i] & 0xff) << 8) | (raw[2 * i + 1] & 0xff);
        }
        // the first longest run of at least two zero words
        int bestBase = -1;
        int bestLen = 0;
        int curBase = -1;
        int curLen = 0;
        for (int i = 0; i < 8; i++) {
            if (w[i] == 0) {
                if (curBase == -1) {
                    curBase = i;
                    curLen = 1;
                } else {
                    curLen++;
                }
            } else if (curBase != -1) {
                if (bestBase == -1 || curLen > bestLen) {
                    bestBase = curBase;
                    bestLen = curLen;
                }
                curBase = -1;
            }
        }
        if (curBase != -1 && (bestBase == -1 || curLen > bestLen)) {
            bestBase = curBase;
            bestLen = curLen;
        }
        if (bestBase != -1 && bestLen < 2) {
            bestBase = -1;
        }
        StringBuilder sb = new StringBuilder(46);
        for (int i = 0; i < 8; i++) {
            if (bestBase != -1 && i >= bestBase && i < bestBase + bestLen) {
                if (i == bestBase) {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0) {
                sb.append(':');
            }
            if (i == 6 && bestBase == 0
                    && (bestLen == 6 || (bestLen == 7 && w[7] != 0x0001) || (bestLen == 5 && w[5] == 0xffff))) {
                sb.append(raw[12] & 0xff).append('.').append(raw[13] & 0xff).append('.')
                        .append(raw[14] & 0xff).append('.').append(raw[15] & 0xff);
                return sb.toString();
            }
            sb.append(Integer.toHexString(w[i]));
        }
        if (bestBase != -1 && bestBase + bestLen == 8) {
            sb.append(':');
        }
        return sb.toString();
    }
}
