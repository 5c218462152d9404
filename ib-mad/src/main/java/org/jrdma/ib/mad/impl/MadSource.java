package org.jrdma.ib.mad.impl;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadSend;

/**
 * Where a received MAD came from: the {@code struct ib_wc} fields of its receive (SLID, SL, remote QPN,
 * P_Key index) and the GIDs of its GRH ({@code ib_init_ah_attr_from_wc}'s inputs). The port and the Q_Key
 * are those of the special QP it arrived on. What an answer of the MAD layer itself (RMPP ACK, unmatched
 * Get/Set) needs to go back, and what an agent's {@link MadRecv} reports.
 *
 * @param sgid the sender's GID from the GRH, or null if it had none
 * @param dgid the GID it was sent to, or null
 */
record MadSource(int slid, int sl, int srcQp, int pkeyIndex, Gid sgid, Gid dgid) {
    /** A MAD from this very port ({@code handle_outgoing_dr_smp}): no GRH, QPN 0, SL 0. */
    static MadSource local(int lid, int pkeyIndex) {
        return new MadSource(lid, 0, 0, pkeyIndex, null, null);
    }

    /** From a receive completion and the 40 bytes in front of its MAD (null: no GRH flag). */
    static MadSource of(WorkCompletion wc, byte[] grh) {
        Gid[] g = grh == null ? null : RdmaHdr.gids(grh);
        return new MadSource(wc.slid(), wc.sl(), wc.srcQp(), wc.pkeyIndex(), g == null ? null : g[0],
                g == null ? null : g[1]);
    }

    /** The address back to the sender, the GRH's GIDs swapped ({@code gidIndex}: of our GID it was sent to). */
    AhAttr replyAh(int port, int gidIndex) {
        AhAttr av = new AhAttr().portNum(port).dlid(slid).sl(sl);
        if (sgid != null) {
            av.grh(sgid, gidIndex);
        }
        return av;
    }

    MadRecv recv(Mad mad, MadSend request) {
        return new MadRecv(mad, slid, srcQp, pkeyIndex, sl, sgid, dgid, request);
    }
}
