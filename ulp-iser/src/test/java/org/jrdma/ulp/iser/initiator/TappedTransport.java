package org.jrdma.ulp.iser.initiator;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.IserBufferPool;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.conn.IserConnectionHandler;
import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.pdu.IscsiHeader;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserPdu;

/**
 * The initiator's view of another transport with every iSCSI header recorded both ways, in order, and a filter
 * that swallows what the initiator sends (a PDU lost on the way: the target never sees it).
 */
final class TappedTransport implements IserTransport {
    private final IserTransport inner;
    private final List<IscsiHeader> sent = new ArrayList<>();
    private final List<IscsiHeader> received = new ArrayList<>();
    /** Sent headers it returns true for are dropped (counted in {@link #swallowed}). */
    volatile Predicate<IscsiHeader> swallow = h -> false;
    private final List<IscsiHeader> swallowed = new ArrayList<>();

    TappedTransport(IserTransport inner) {
        this.inner = inner;
    }

    synchronized List<IscsiHeader> sent() {
        return List.copyOf(sent);
    }

    synchronized List<IscsiHeader> received() {
        return List.copyOf(received);
    }

    synchronized List<IscsiHeader> swallowed() {
        return List.copyOf(swallowed);
    }

    /** The headers of one kind, sent or received. */
    static <T extends IscsiHeader> List<T> of(List<IscsiHeader> all, Class<T> kind) {
        return all.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    @Override
    public IserListener listen(InetSocketAddress portal, Consumer<IserConnection> accepted) {
        return inner.listen(portal, accepted);
    }

    @Override
    public CompletionStage<IserConnection> connect(InetSocketAddress portal, IserConnectionHandler handler) {
        Tap tap = new Tap(handler);
        return inner.connect(portal, tap.in).thenApply(c -> {
            tap.conn = c;
            return tap;
        });
    }

    private synchronized void record(List<IscsiHeader> to, IscsiHeader h) {
        to.add(h);
    }

    /** One connection: sends recorded (or swallowed), received PDUs recorded and handed on as from the tap. */
    private final class Tap implements IserConnection {
        volatile IserConnection conn;
        volatile IserConnectionHandler handler;
        final IserConnectionHandler in = new IserConnectionHandler() {
            @Override
            public void onPdu(IserConnection c, IserPdu pdu) {
                record(received, pdu.pdu().header());
                handler.onPdu(Tap.this, pdu);
            }

            @Override
            public void onMalformed(IserConnection c, IscsiProtocolException error) {
                handler.onMalformed(Tap.this, error);
            }

            @Override
            public void onDisconnected(IserConnection c, String reason) {
                handler.onDisconnected(Tap.this, reason);
            }
        };

        Tap(IserConnectionHandler handler) {
            this.handler = handler;
        }

        @Override
        public CompletionStage<Void> send(IserPdu pdu) {
            IscsiHeader h = pdu.pdu().header();
            if (swallow.test(h)) {
                record(swallowed, h);
                return CompletableFuture.completedFuture(null); // "sent": lost on the way
            }
            record(sent, h);
            return conn.send(pdu);
        }

        @Override
        public CompletionStage<Void> sendWithInvalidate(IserPdu pdu, int rkey) {
            record(sent, pdu.pdu().header());
            return conn.sendWithInvalidate(pdu, rkey);
        }

        @Override
        public CompletionStage<Void> rdmaRead(IserBuffer local, int offset, int length, int stag, long va) {
            return conn.rdmaRead(local, offset, length, stag, va);
        }

        @Override
        public CompletionStage<Void> rdmaWrite(IserBuffer local, int offset, int length, int stag, long va) {
            return conn.rdmaWrite(local, offset, length, stag, va);
        }

        @Override public IserBufferPool buffers() { return conn.buffers(); }
        @Override public int maxRecvDataSegmentLength() { return conn.maxRecvDataSegmentLength(); }
        @Override public boolean peerAcceptsSendWithInvalidate() { return conn.peerAcceptsSendWithInvalidate(); }
        @Override public InetSocketAddress localAddress() { return conn.localAddress(); }
        @Override public InetSocketAddress remoteAddress() { return conn.remoteAddress(); }
        @Override public void handler(IserConnectionHandler h) { handler = h; }
        @Override public void close() { conn.close(); }
    }
}
