package org.jrdma.ib.cm.ib;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;

/**
 * A path between two ports ({@code struct sa_path_rec} with the local port and GID index): the route a
 * connection's QP and its CM messages take, seen from this side.
 *
 * @param port         the local port
 * @param sgidIndex    the local GID's index in the port's GID table
 * @param sgid         the local GID
 * @param dgid         the remote GID
 * @param lidRouted    an InfiniBand path (LIDs, SL; a GRH only with a hop limit); false: RoCE (a GRH, LIDs 0xffff)
 * @param slid         InfiniBand: the local LID
 * @param dlid         InfiniBand: the remote LID
 * @param sl           the service level
 * @param mtu          the path MTU ({@code enum ib_mtu} code)
 * @param rate         the static rate code (0: the port's current rate)
 * @param packetLife   the packet life time (4.096 us * 2^packetLife)
 * @param hopLimit     the GRH's hop limit (InfiniBand: 0 inside the subnet)
 * @param trafficClass the GRH's traffic class
 * @param flowLabel    the GRH's flow label
 */
public record IbCmPath(int port, int sgidIndex, Gid sgid, Gid dgid, boolean lidRouted, int slid, int dlid, int sl,
        int mtu, int rate, int packetLife, int hopLimit, int trafficClass, int flowLabel) {
    /**
     * {@code ib_init_ah_attr_from_path}: the address vector to the peer. RoCE: a GRH to the remote GID;
     * InfiniBand: the DLID, SL and rate, a GRH only when the path has a hop limit (inside the subnet it has 0).
     */
    public AhAttr ahAttr() {
        if (!lidRouted) {
            return new AhAttr().portNum(port).grh(dgid, sgidIndex);
        }
        AhAttr av = new AhAttr().portNum(port).dlid(dlid).sl(sl).staticRate(rate);
        if (hopLimit > 0) {
            av.grh(dgid, sgidIndex);
        }
        return av;
    }
}
