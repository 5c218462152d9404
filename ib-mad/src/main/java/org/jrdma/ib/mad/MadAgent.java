package org.jrdma.ib.mad;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpType;

/**
 * {@code struct ib_mad_agent}: a client's registration on one port's SMI or GSI QP. Sends go out on
 * that QP; the responses to them and the unsolicited MADs the agent claimed come to its handler.
 */
public interface MadAgent extends AutoCloseable {
    IbDevice device();

    int port();

    /** SMI (QP0) or GSI (QP1). */
    QpType qpType();

    /**
     * The high 32 bits this agent puts in the TIDs of its requests ({@code hi_tid}): responses are routed
     * to the agent by them. {@link #newTid()} makes a TID with them.
     */
    int hiTid();

    /** A fresh transaction ID for a request of this agent. */
    long newTid();

    /**
     * {@code ib_post_send_mad}. A send with a timeout is a request: it is done when its response arrives
     * (matched by TID and class), or after {@code retries} resends without one (RESP_TIMEOUT_ERR).
     *
     * @throws org.jrdma.ib.core.VerbsException EINVAL for a bad send (no destination, not a MAD), ENODEV
     *         if the agent is closed or its port gone
     */
    void send(MadSend send);

    /** {@code ib_cancel_mad}: the send, if still outstanding, completes with WR_FLUSH_ERR. */
    void cancel(MadSend send);

    /**
     * {@code ib_modify_mad}: restarts a waiting request's response timer with a new timeout (an MRA
     * asks for more time); false if it is not outstanding any more.
     */
    boolean modify(MadSend send, int timeoutMs);

    /**
     * {@code ib_init_ah_attr_from_wc}: the address vector back to the sender of {@code recv}, for a
     * response ({@code new MadSend(resp).ah(agent.ahAttrFromWc(recv)).remoteQpn(recv.srcQp())}). The
     * DLID is the sender's LID; with a GRH the DGID is the sender's GID and the source GID index is the
     * one of this port's GIDs the MAD was sent to (0 if none matches).
     */
    default AhAttr ahAttrFromWc(MadRecv recv) {
        AhAttr av = new AhAttr().portNum(port()).dlid(recv.slid()).sl(recv.sl());
        if (recv.sgid() != null) {
            int sgidIndex = 0;
            if (recv.dgid() != null) {
                int n = device().queryPort(port()).gidTblLen();
                for (int i = 0; i < n; i++) {
                    Gid g = device().queryGid(port(), i);
                    if (recv.dgid().equals(g)) {
                        sgidIndex = i;
                        break;
                    }
                }
            }
            av.grh(recv.sgid(), sgidIndex);
        }
        return av;
    }

    /** {@code ib_unregister_mad_agent}: outstanding sends complete with WR_FLUSH_ERR; no callback afterwards. */
    @Override
    void close();
}
