package org.jrdma.ib.cm.impl;

/**
 * What the IB CM and the RDMA CM still hold, for ipoib's tests (in the CM's package: their tables are
 * package-private).
 */
public final class IbCmIds {
    private IbCmIds() {
    }

    /** Ids not destroyed (or destroyed and time-waiting), listeners included. */
    public static int live(IbCmService cm) {
        synchronized (cm.lock) {
            return cm.ids.size();
        }
    }

    /** Whether an RDMA CM id listens on TCP port {@code port} (a server is ready). */
    public static boolean listening(RdmaCmService cm, int port) {
        return cm.listening(org.jrdma.ib.cm.RdmaPortSpace.TCP, port);
    }

    /** RDMA CM ids not destroyed. */
    public static int rdmaIds(RdmaCmService cm) {
        return cm.idCount();
    }
}
