package org.jrdma.ib.cm.addr;

import java.net.InetAddress;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;

/**
 * {@code struct rdma_dev_addr} as a resolution fills it: the network interface (name and index, Linux's
 * {@code bound_dev_if}), its RDMA device port and port GID, the source IP address, the source and destination
 * hardware addresses and the destination GID read from it. For a local address only (translation) the destination
 * parts are null. IPoIB's hardware address is 20 bytes (flags, QPN, GID: {@code rdma_addr_gid_offset} 4).
 *
 * @param netdev  the interface's name ({@code ib0})
 * @param ifindex the interface's index
 * @param device  the RDMA device under the interface
 * @param port    its port
 * @param srcIp   the source address (the translated address, or the one routing picked for the destination)
 * @param sgid    the port GID the source hardware address carries
 * @param dgid    the destination's GID (from its hardware address), or null
 * @param srcHw   the interface's hardware address
 * @param dstHw   the destination's hardware address from the neighbour table, or null
 */
public record RdmaDevAddr(String netdev, int ifindex, IbDevice device, int port, InetAddress srcIp, Gid sgid, Gid dgid,
        byte[] srcHw, byte[] dstHw) {
    public RdmaDevAddr {
        if (netdev == null || device == null || srcIp == null || sgid == null) {
            throw new IllegalArgumentException("netdev, device, srcIp and sgid are required");
        }
        srcHw = srcHw == null ? null : srcHw.clone();
        dstHw = dstHw == null ? null : dstHw.clone();
    }

    @Override
    public byte[] srcHw() {
        return srcHw == null ? null : srcHw.clone();
    }

    @Override
    public byte[] dstHw() {
        return dstHw == null ? null : dstHw.clone();
    }

    @Override
    public String toString() {
        return netdev + " (" + device.name() + "/" + port + ") " + srcIp.getHostAddress() + " sgid " + sgid
                + (dgid != null ? " dgid " + dgid : "");
    }
}
