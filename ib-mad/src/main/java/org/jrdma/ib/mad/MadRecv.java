package org.jrdma.ib.mad;

import org.jrdma.ib.core.Gid;

/**
 * {@code struct ib_mad_recv_wc}: a received MAD and where it came from.
 *
 * @param mad       the MAD (256 bytes; more when RMPP reassembled a multi-segment response)
 * @param slid      the sender's LID (IB link layer; 0 on RoCE)
 * @param srcQp     the sender's QPN (1 for GSI, 0 for SMI, or a redirected QP)
 * @param pkeyIndex the P_Key index it arrived on
 * @param sl        the service level
 * @param sgid      the sender's GID from the GRH, or null if it had none
 * @param dgid      the GID it was sent to, or null
 * @param request   the send this answers (a response matched by TID), or null for an unsolicited MAD
 */
public record MadRecv(Mad mad, int slid, int srcQp, int pkeyIndex, int sl, Gid sgid, Gid dgid, MadSend request) {
}
