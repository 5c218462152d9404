package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * Checks the ICRC of a received IPv4 RoCEv2 packet without knowing its IP Identification, and recovers that ID.
 *
 * <p>rxe's IPv4 ICRC covers the IP ID (see {@link Icrc}), which Linux rxe fills with
 * {@code __ip_select_ident()} and which a UDP socket never sees. CRC-32 is affine over GF(2): with the same
 * length and all other bytes equal, {@code icrc(id) ^ icrc(0)} is the XOR, over the set bits {@code k} of
 * {@code id}, of fixed vectors {@code x^(8n) * u_k mod P}, where {@code u_k} is the contribution of ID bit
 * {@code k} at the end of the ID field and {@code n = 18 + length} is the number of CRC input bytes after the
 * ID field (8 masked-LRH bytes + 20 IPv4 + 8 UDP + UDP payload without the 4 ICRC bytes = {@code 32 + length}
 * bytes in all; the ID is bytes 12-13).
 *
 * <p>Instead of shifting the 16 basis vectors forward to each length, this class shifts the observed
 * difference <em>back</em> by {@code n} zero bytes ({@code x^(-8n) mod P}, O(log n) 32x32 GF(2)
 * matrix-vector products with precomputed matrices {@code x^(-8*2^i)}, zlib {@code crc32_combine} style) and
 * solves against the fixed, precomputed, fully reduced basis of the 16 {@code u_k}. If the shifted difference
 * is in their span the unique solution is the ID (the {@code u_k} are independent: a non-zero polynomial of
 * degree &lt; 16 is never a multiple of the degree-32 CRC polynomial); otherwise the packet is corrupt.
 *
 * <p>Strength: 32 - 16 = 16 bits, i.e. a corrupted packet passes with probability about 2^-16 (and then
 * with a wrong ID). That is the average; it is not uniform over positions: acceptance of a single-byte error
 * depends only on its distance from the ID field, and most distances reject every byte error while a few are
 * weak. Measured (IcrcIpv4SpanTest, exhaustive over a 1056-byte payload): the only weak byte is IP-packet byte
 * 121 (115 bytes after the ID; BTH offset 93), where 15 of 255 XOR values pass, giving 15 / 273360 = 3.6 * 2^-16
 * for uniformly random single-byte errors in that packet. IPv6 needs none of this (full 32-bit check). The flags/fragment-offset field is assumed to
 * be what the caller passes (rxe always sends DF, {@link Icrc#IPV4_DF}).
 *
 * <p>Stateless, thread-safe, allocation-free.
 */
public final class IcrcIpv4Span {
    /** Returned when no IP ID makes the ICRC consistent. */
    public static final int INCONSISTENT = -1;

    /** Reflected CRC-32 polynomial (IEEE 802.3). */
    private static final int POLY = 0xedb88320;
    /** Largest shift: n = 18 + length, length &lt;= 65535 - 8 - 20; 17 powers of two cover it. */
    private static final int POWERS = 17;
    /** INV[i] = matrix of x^(-8 * 2^i) mod P, as 32 columns (column j = image of bit j). */
    private static final int[][] INV = new int[POWERS][];
    /** FWD[i] = matrix of x^(8 * 2^i) mod P: {@code 2^i} zero bytes through the register. */
    private static final int[][] FWD = new int[POWERS][];
    /** Reduced basis of the u_k: pivot bit, vector (only its own pivot among the pivots), ID bits combined. */
    private static final int[] PIVOT = new int[16];
    private static final int[] VEC = new int[16];
    private static final int[] TAG = new int[16];

    static {
        // Inverse of one zero bit through the reflected register: forward is s' = s>>>1 ^ (s&1 ? POLY : 0);
        // POLY has bit 31 set and s>>>1 has not, so bit 31 of s' tells whether s&1 was 1.
        int[] inv8 = new int[32];
        for (int j = 0; j < 32; j++) {
            int s = 1 << j;
            for (int k = 0; k < 8; k++) {
                s = (s & 0x80000000) != 0 ? ((s ^ POLY) << 1) | 1 : s << 1;
            }
            inv8[j] = s;
        }
        INV[0] = inv8;
        for (int i = 1; i < POWERS; i++) {
            INV[i] = square(INV[i - 1]);
        }
        int[] fwd8 = new int[32];
        for (int j = 0; j < 32; j++) {
            fwd8[j] = feed(1 << j, 0);
        }
        FWD[0] = fwd8;
        for (int i = 1; i < POWERS; i++) {
            FWD[i] = square(FWD[i - 1]);
        }
        // u_k: CRC register difference right after the two ID bytes when ID bit k flips. With zero start
        // state the linear part is just the register after feeding the two ID bytes.
        int[] vec = new int[16];
        int[] tag = new int[16];
        for (int k = 0; k < 16; k++) {
            int id = 1 << k;
            vec[k] = feed(feed(0, id >>> 8), id & 0xff);
            tag[k] = id;
        }
        // Gauss-Jordan: distinct pivots, each pivot bit cleared from every other vector.
        for (int r = 0; r < 16; r++) {
            int best = -1;
            for (int k = r; k < 16; k++) {
                if (vec[k] != 0) {
                    best = k;
                    break;
                }
            }
            if (best < 0) {
                throw new AssertionError("ID basis vectors are dependent");
            }
            swap(vec, r, best);
            swap(tag, r, best);
            int p = Integer.numberOfTrailingZeros(vec[r]);
            for (int k = 0; k < 16; k++) {
                if (k != r && (vec[k] >>> p & 1) != 0) {
                    vec[k] ^= vec[r];
                    tag[k] ^= tag[r];
                }
            }
            PIVOT[r] = p;
        }
        System.arraycopy(vec, 0, VEC, 0, 16);
        System.arraycopy(tag, 0, TAG, 0, 16);
    }

    private IcrcIpv4Span() {
    }

    /**
     * The IP ID that makes {@code storedIcrc} the correct ICRC, or {@link #INCONSISTENT}.
     *
     * @param icrcWithId0 the ICRC computed over the received packet with IP ID 0 (e.g.
     *        {@code icrc.ipv4(src, dst, 0, Icrc.IPV4_DF, sport, dport, b, bthOffset, length)})
     * @param storedIcrc the ICRC carried by the packet ({@link Icrc#stored})
     * @param length UDP payload length including the ICRC, as passed to {@link Icrc#ipv4}
     * @return the IP ID (0..65535) or {@link #INCONSISTENT} (-1)
     */
    public static int recoverId(int icrcWithId0, int storedIcrc, int length) {
        if (length < Bth.BYTES + RxeWire.ICRC_BYTES || length > 0xffff - Icrc.IPV4_HDR_BYTES - Icrc.UDP_HDR_BYTES) {
            throw new IllegalArgumentException("bad UDP payload length " + length);
        }
        int w = icrcWithId0 ^ storedIcrc;
        if (w == 0) {
            return 0;
        }
        int n = 18 + length; // CRC input bytes after the ID field
        for (int i = 0; n != 0; i++, n >>>= 1) {
            if ((n & 1) != 0) {
                w = times(INV[i], w);
            }
        }
        int id = 0;
        for (int r = 0; r < 16; r++) {
            if ((w >>> PIVOT[r] & 1) != 0) {
                w ^= VEC[r];
                id ^= TAG[r];
            }
        }
        return w == 0 ? id : INCONSISTENT;
    }

    /**
     * What turns the ICRC of a packet computed with IP ID 0 into the one with IP ID {@code id}, all else equal:
     * {@code icrc(id) == icrc(0) ^ idDelta(id, length)}. The sender's side of {@link #recoverId}: a UDP GSO
     * datagram sent with IP ID 0 leaves as segments with IDs 0, 1, 2, ... (the kernel's segmentation counts
     * the ID up), and each segment must carry the ICRC for its own ID.
     *
     * @param id the IP ID (0..65535)
     * @param length UDP payload length including the ICRC, as passed to {@link Icrc#ipv4}
     */
    public static int idDelta(int id, int length) {
        if (length < Bth.BYTES + RxeWire.ICRC_BYTES || length > 0xffff - Icrc.IPV4_HDR_BYTES - Icrc.UDP_HDR_BYTES) {
            throw new IllegalArgumentException("bad UDP payload length " + length);
        }
        int w = feed(feed(0, id >>> 8), id & 0xff); // the register difference right after the ID field
        int n = 18 + length; // CRC input bytes after the ID field
        for (int i = 0; n != 0 && w != 0; i++, n >>>= 1) {
            if ((n & 1) != 0) {
                w = times(FWD[i], w);
            }
        }
        return w;
    }

    /**
     * {@link #idDelta} for many IDs of one packet length: the deltas of the 16 ID bits, computed once per length
     * (a few of the last lengths are kept); then a delta is an XOR per set ID bit. Not thread-safe: one per
     * thread.
     */
    public static final class IdDeltas {
        private final int[] lengths = {-1, -1, -1, -1};
        private final int[][] bits = new int[4][16];
        private int next;

        /** {@code idDelta(id, length)}. */
        public int of(int id, int length) {
            int[] b = null;
            for (int i = 0; i < lengths.length; i++) {
                if (lengths[i] == length) {
                    b = bits[i];
                    break;
                }
            }
            if (b == null) {
                int slot = next;
                next = (next + 1) & 3;
                b = bits[slot];
                for (int k = 0; k < 16; k++) {
                    b[k] = idDelta(1 << k, length);
                }
                lengths[slot] = length;
            }
            int d = 0;
            for (int v = id & 0xffff; v != 0; v &= v - 1) {
                d ^= b[Integer.numberOfTrailingZeros(v)];
            }
            return d;
        }
    }

    /** Whether some IP ID makes {@code storedIcrc} correct: {@code recoverId(...) >= 0}. */
    public static boolean consistent(int icrcWithId0, int storedIcrc, int length) {
        return recoverId(icrcWithId0, storedIcrc, length) >= 0;
    }

    /**
     * Convenience for the UDP-socket receive path: computes the ICRC with ID 0 from the header fields the
     * socket knows and checks the stored one.
     *
     * @return the recovered IP ID or {@link #INCONSISTENT}
     */
    public static int recoverId(Icrc icrc, int srcAddr, int dstAddr, int flagsFragOff, int srcPort, int dstPort,
            ByteBuf b, int bthOffset, int length) {
        int c0 = icrc.ipv4(srcAddr, dstAddr, 0, flagsFragOff, srcPort, dstPort, b, bthOffset, length);
        return recoverId(c0, Icrc.stored(b, bthOffset, length), length);
    }

    /** Reflected CRC register (zero start, no final XOR) after feeding one byte. */
    private static int feed(int s, int v) {
        s ^= v & 0xff;
        for (int k = 0; k < 8; k++) {
            s = (s & 1) != 0 ? (s >>> 1) ^ POLY : s >>> 1;
        }
        return s;
    }

    private static int times(int[] mat, int v) {
        int r = 0;
        for (int j = 0; v != 0; j++, v >>>= 1) {
            if ((v & 1) != 0) {
                r ^= mat[j];
            }
        }
        return r;
    }

    private static int[] square(int[] mat) {
        int[] sq = new int[32];
        for (int j = 0; j < 32; j++) {
            sq[j] = times(mat, mat[j]);
        }
        return sq;
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
