package org.jrdma.ulp.iser.conn;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * How connections come to be: the target listens on a portal ({@code isert_setup_np}: an RDMA CM id in the
 * TCP port space bound to IP:port, default 3260), the initiator connects ({@code iser_connect}). Both sides put
 * {@code struct iser_cm_hdr} in the CM private data as Linux does, so Linux peers interoperate.
 */
public interface IserTransport {

    /** Default iSCSI port (RFC 7143), also the iSER one. */
    int ISCSI_PORT = 3260;

    /**
     * Listens on {@code portal}. Each accepted connection is handed to {@code accepted} once established; its
     * handler must be set there. Closing the returned listener stops accepting (established connections stay).
     */
    IserListener listen(InetSocketAddress portal, Consumer<IserConnection> accepted);

    /**
     * As {@link #listen}, but a portal whose address no RDMA device has yet (EADDRNOTAVAIL) is not an error: it
     * listens as soon as a device has the address. For portals that come from a configuration at boot, where
     * the device and the target configuration appear in any order. Other failures (EADDRINUSE) still throw.
     */
    default IserListener listenWhenReady(InetSocketAddress portal, Consumer<IserConnection> accepted) {
        return listen(portal, accepted);
    }

    /** Connects to a target portal; the stage fails with an {@link IserTransportException} on REJ/timeout. */
    CompletionStage<IserConnection> connect(InetSocketAddress portal, IserConnectionHandler handler);

    /** A listening portal. */
    interface IserListener extends AutoCloseable {
        InetSocketAddress address();

        @Override
        void close();
    }
}
