package org.jrdma.launcher;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.framework.BundleContext;

/**
 * The service container's control socket: a Unix-domain socket (mode 0600, so only its owner may attach)
 * on which each accepted client gets an {@link AttachConnection}. A socket file left by a container that
 * died is replaced; one whose container still answers is not (two containers must not share a home).
 */
final class AttachServer implements AutoCloseable {

    private final Path path;
    private final ServerSocketChannel server;
    private final BundleContext context;
    private final StartupGate gate;
    private final boolean trace;
    private final Set<AttachConnection> connections = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    private AttachServer(Path path, ServerSocketChannel server, BundleContext context, StartupGate gate, boolean trace) {
        this.path = path;
        this.server = server;
        this.context = context;
        this.gate = gate;
        this.trace = trace;
        this.acceptor = new Thread(this::accept, "jrdma attach " + path.getFileName());
        acceptor.setDaemon(true);
    }

    /** Binds the socket at {@code path} and starts accepting clients. */
    static AttachServer open(Path path, BundleContext context, StartupGate gate, boolean trace) throws IOException {
        if (Files.exists(path) && answers(path)) {
            throw new IOException("another container already listens on " + path);
        }
        Files.deleteIfExists(path);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        AttachServer s = new AttachServer(path, server, context, gate, trace);
        s.acceptor.start();
        return s;
    }

    private static boolean answers(Path path) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void accept() {
        int id = 0;
        while (!closed) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue; // e.g. EMFILE: the next accept may work
            }
            AttachConnection c = new AttachConnection(client, context, gate, trace, ++id);
            connections.add(c);
            connections.removeIf(AttachConnection::isClosed);
            Thread t = new Thread(() -> {
                try {
                    c.run();
                } finally {
                    connections.remove(c);
                }
            }, "jrdma attach " + id + " reader");
            t.setDaemon(true);
            t.start();
        }
    }

    /** The number of clients attached now. */
    int clients() {
        connections.removeIf(AttachConnection::isClosed);
        return connections.size();
    }

    Path path() {
        return path;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // already closed
        }
        for (AttachConnection c : connections) {
            c.close();
        }
        connections.clear();
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // the home may be gone
        }
        try {
            acceptor.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
