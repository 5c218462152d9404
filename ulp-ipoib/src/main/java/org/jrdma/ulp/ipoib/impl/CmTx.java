package org.jrdma.ulp.ipoib.impl;

import java.util.ArrayDeque;

import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ulp.ipoib.CmConnection;

/**
 * One active connection to a peer (Linux's {@code ipoib_cm_tx}): looked up by the peer's UD QPN and GID, it asks the
 * SA for the path, sends the REQ, and once the REP is in carries the peer's packets. Packets wait while it is being
 * set up, at most {@value #MAX_QUEUE} ({@code IPOIB_MAX_PATH_REC_QUEUE}); more are dropped and counted.
 */
final class CmTx {
    static final int MAX_QUEUE = 16;

    /** Where the connection is: waiting for its path, for the REP, or carrying packets. */
    enum State {
        PATH("connecting"), REQ_SENT("connecting"), UP("up");

        final String word;

        State(String word) {
            this.word = word;
        }
    }

    record Pending(int ethertype, byte[] payload) {
    }

    final HwAddr peer;
    final ArrayDeque<Pending> queue = new ArrayDeque<>();
    State state = State.PATH;
    IbCmId id;
    QueuePair qp;
    /** The largest IP packet the peer takes (its REP's receive MTU less the header). */
    int mtu;
    int remoteQpn;
    long packets;

    CmTx(HwAddr peer) {
        this.peer = peer;
    }

    CmConnection view() {
        return new CmConnection(false, peer.bytes(), qp == null ? 0 : qp.qpNum(), remoteQpn, mtu, state.word, packets);
    }
}
