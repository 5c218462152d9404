package org.jrdma.ib.mad.impl;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.WcFlags;

/**
 * The {@link WcFlags#GRH_BYTES} (40) bytes in front of a UD/GSI receive ({@code union rdma_network_hdr}): an IB GRH or IPv6
 * header (source GID at 8, destination at 24), or, for RoCEv2 over IPv4, 20 bytes of zero and the IPv4
 * header ({@code ib_get_rdma_header_version}, {@code ib_get_gids_from_rdma_hdr}).
 */
final class RdmaHdr {
    private RdmaHdr() {
    }

    /** The source and destination GIDs, or null when the header holds none (all zero). */
    static Gid[] gids(byte[] h) {
        if (isIpv4(h)) {
            return new Gid[] {v4(h, 32), v4(h, 36)};
        }
        if ((h[0] & 0xf0) != 0x60) {
            return null;
        }
        byte[] s = new byte[16];
        byte[] d = new byte[16];
        System.arraycopy(h, 8, s, 0, 16);
        System.arraycopy(h, 24, d, 0, 16);
        Gid sgid = Gid.of(s);
        return sgid.isZero() ? null : new Gid[] {sgid, Gid.of(d)};
    }

    /** An IPv4 header at 20 (version 4, IHL 5, valid checksum), as {@code ib_get_rdma_header_version}. */
    private static boolean isIpv4(byte[] h) {
        if ((h[20] & 0xff) != 0x45) {
            return false;
        }
        int sum = 0;
        for (int i = 20; i < 40; i += 2) {
            sum += (h[i] & 0xff) << 8 | h[i + 1] & 0xff;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return sum == 0xffff;
    }

    private static Gid v4(byte[] h, int off) {
        byte[] g = new byte[16];
        g[10] = (byte) 0xff;
        g[11] = (byte) 0xff;
        System.arraycopy(h, off, g, 12, 4);
        return Gid.of(g);
    }
}
