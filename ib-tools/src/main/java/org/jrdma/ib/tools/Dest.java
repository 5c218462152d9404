package org.jrdma.ib.tools;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.jrdma.ib.core.Gid;

/**
 * {@code struct pingpong_dest}: what one side tells the other over TCP, and its wire form, the
 * message of rdma-core's {@code pp_*_exch_dest}: {@code sprintf("%04x:%06x:%06x:%s", lid, qpn, psn,
 * wire_gid)} in a buffer of {@code sizeof "0000:000000:000000:00000000000000000000000000000000"}
 * = {@value #MSG_SIZE} bytes, sent whole with its terminating NUL. The wire GID is the 16 raw GID
 * bytes as 32 lower-case hex digits ({@code gid_to_wire_gid}).
 *
 * @param lid the port's LID (0 on RoCE)
 * @param qpn the QP number
 * @param psn the 24-bit starting PSN
 * @param gid the GID, all zero without {@code -g}
 */
record Dest(int lid, int qpn, int psn, Gid gid) {
    /** {@code sizeof msg} in the real tools: 51 characters and the NUL. */
    static final int MSG_SIZE = 52;
    /** {@code sizeof "done"}: the client's final word, NUL included. */
    static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    /** The {@value #MSG_SIZE} bytes the real tools write. */
    byte[] toWire() {
        String s = String.format(Locale.ROOT, "%04x:%06x:%06x:%s", lid, qpn, psn, wireGid(gid));
        byte[] text = s.getBytes(StandardCharsets.US_ASCII);
        byte[] msg = new byte[MSG_SIZE];
        // sprintf writes exactly 51 characters for in-range values; never overrun the buffer
        System.arraycopy(text, 0, msg, 0, Math.min(text.length, MSG_SIZE - 1));
        return msg;
    }

    /** {@code gid_to_wire_gid}: the raw bytes, in order, as 32 hex digits. */
    static String wireGid(Gid gid) {
        StringBuilder sb = new StringBuilder(32);
        for (byte b : gid.raw()) {
            sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return sb.toString();
    }

    /**
     * What {@code sscanf(msg, "%x:%x:%x:%s", ...)} and {@code wire_gid_to_gid} make of a received
     * message: as lenient as they are (a field that does not parse stays 0, the text ends at the
     * first NUL, each 8-digit GID word is read as far as it is hex).
     */
    static Dest fromWire(byte[] msg) {
        int end = 0;
        while (end < msg.length && msg[end] != 0) {
            end++;
        }
        String s = new String(msg, 0, end, StandardCharsets.ISO_8859_1);
        Scanner sc = new Scanner(s);
        long[] v = new long[3];
        String wgid = "";
        int fields = 0;
        for (; fields < 3; fields++) {
            Long x = sc.hex();
            if (x == null) {
                break;
            }
            v[fields] = x;
            if (!sc.literal(':')) {
                fields++;
                break;
            }
        }
        if (fields == 3) {
            wgid = sc.word();
        }
        return new Dest((int) v[0], (int) v[1], (int) v[2], wireGidToGid(wgid));
    }

    /** {@code wire_gid_to_gid}: four big-endian 32-bit words of 8 hex digits each. */
    static Gid wireGidToGid(String wgid) {
        byte[] raw = new byte[16];
        for (int i = 0; i < 4; i++) {
            int from = Math.min(i * 8, wgid.length());
            int to = Math.min(from + 8, wgid.length());
            Long x = new Scanner(wgid.substring(from, to)).hex();
            int w = x == null ? 0 : (int) (long) x;
            raw[4 * i] = (byte) (w >>> 24);
            raw[4 * i + 1] = (byte) (w >>> 16);
            raw[4 * i + 2] = (byte) (w >>> 8);
            raw[4 * i + 3] = (byte) w;
        }
        return Gid.of(raw);
    }

    /** The address line of the tools: {@code LID 0x%04x, QPN 0x%06x, PSN 0x%06x} (the GID part differs). */
    String lidQpnPsn() {
        return String.format(Locale.ROOT, "LID 0x%04x, QPN 0x%06x, PSN 0x%06x", lid, qpn, psn);
    }

    /** The GID as {@code inet_ntop(AF_INET6)} prints it. */
    String gidText() {
        return InetNtop.inetNtop6(gid.raw());
    }

    /** Just enough of {@code sscanf}: {@code %x}, a literal, {@code %s}. */
    private static final class Scanner {
        private final String s;
        private int i;

        Scanner(String s) {
            this.s = s;
        }

        private void skipSpace() {
            while (i < s.length() && (s.charAt(i) == ' ' || (s.charAt(i) >= '\t' && s.charAt(i) <= '\r'))) {
                i++;
            }
        }

        /** {@code %x}: optional sign and 0x, hex digits; null when no digit matched. */
        Long hex() {
            skipSpace();
            int j = i;
            boolean neg = false;
            if (j < s.length() && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
                neg = s.charAt(j) == '-';
                j++;
            }
            if (j + 2 < s.length() && s.charAt(j) == '0' && (s.charAt(j + 1) == 'x' || s.charAt(j + 1) == 'X')
                    && hexDigit(s.charAt(j + 2)) >= 0) {
                j += 2;
            }
            long v = 0;
            int start = j;
            while (j < s.length() && hexDigit(s.charAt(j)) >= 0) {
                v = (v << 4) | hexDigit(s.charAt(j));
                j++;
            }
            if (j == start) {
                return null;
            }
            i = j;
            return neg ? -v : v;
        }

        boolean literal(char c) {
            if (i < s.length() && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        /** {@code %s} into {@code char gid[33]}: at most 32 characters are kept. */
        String word() {
            skipSpace();
            int j = i;
            while (j < s.length() && !(s.charAt(j) == ' ' || (s.charAt(j) >= '\t' && s.charAt(j) <= '\r'))) {
                j++;
            }
            String w = s.substring(i, Math.min(j, i + 32));
            i = j;
            return w;
        }

        private static int hexDigit(char c) {
            return c < 128 ? Character.digit(c, 16) : -1;
        }
    }
}
