package org.jrdma.ulp.ipoib;

/**
 * One connected-mode RC connection of an interface (RFC 4755).
 *
 * @param passive   accepted from the peer ({@code ipoib_cm_rx}); false: opened by this side ({@code ipoib_cm_tx})
 * @param peer      the peer's 20-byte hardware address (its UD QPN and port GID)
 * @param qpn       this side's RC QP
 * @param remoteQpn the peer's RC QP
 * @param mtu       active side: the largest IP packet the peer takes (its REP's receive MTU less 4); passive: 0
 * @param state     {@code connecting}, {@code up}
 * @param packets   the packets moved over it (sent for an active one, received for a passive one)
 */
public record CmConnection(boolean passive, byte[] peer, int qpn, int remoteQpn, int mtu, String state,
        long packets) {
}
