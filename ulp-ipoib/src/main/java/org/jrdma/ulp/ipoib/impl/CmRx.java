package org.jrdma.ulp.ipoib.impl;

import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ulp.ipoib.CmConnection;

/**
 * One passive connection (Linux's {@code ipoib_cm_rx}): a peer's REQ accepted, an RC QP receiving on the SRQ. The
 * time of its last packet lets the reaper close it when idle ({@code ipoib_cm_stale_task}).
 */
final class CmRx {
    final IbCmId id;
    final QueuePair qp;
    final HwAddr peer;
    final int remoteQpn;
    long lastActiveNanos = System.nanoTime();
    boolean up;
    long packets;

    CmRx(IbCmId id, QueuePair qp, HwAddr peer, int remoteQpn) {
        this.id = id;
        this.qp = qp;
        this.peer = peer;
        this.remoteQpn = remoteQpn;
    }

    CmConnection view() {
        return new CmConnection(true, peer.bytes(), qp.qpNum(), remoteQpn, 0, up ? "up" : "connecting", packets);
    }
}
