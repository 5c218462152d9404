package org.example.hello;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;

/**
 * hello's passive side on one device, as a kernel ULP's listener: {@code rdma_listen} on the device's
 * address, and for each CONNECT_REQUEST a QP on the new id and an accept that tells the peer where it may
 * RDMA WRITE. It answers each request with one SEND (see {@link HelloWire}). Runs on the CM's thread and in
 * completion handlers: never blocks.
 */
final class HelloServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.example.hello");

    private final IbClient owner;
    private final RdmaCmId listener;
    private final Set<HelloConn> conns = ConcurrentHashMap.newKeySet();
    /** Requests we could not parse: counted and dropped. */
    final AtomicLong drops = new AtomicLong();
    /** Requests answered. */
    final AtomicLong answered = new AtomicLong();
    private volatile boolean closed;

    HelloServer(RdmaCm cm, IbClient owner, InetSocketAddress addr) {
        this.owner = owner;
        this.listener = cm.createId(this::onEvent, RdmaPortSpace.TCP);
        try {
            listener.bindAddr(addr);
            listener.listen(8);
        } catch (RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    InetSocketAddress address() {
        return listener.localAddr();
    }

    /** Non-zero: the CM destroys the id (rejecting a connect request). */
    private int onEvent(RdmaCmId id, RdmaCmEvent ev) {
        switch (ev.type()) {
            case CONNECT_REQUEST:
                return accept(id);
            case DISCONNECTED:
            case DEVICE_REMOVAL:
                if (id.context() instanceof HelloConn c && conns.remove(c)) { // else close() has it
                    c.close();
                    return 1;
                }
                return 0;
            default:
                return 0;
        }
    }

    private int accept(RdmaCmId id) {
        if (closed) {
            return 1;
        }
        HelloConn c = null;
        try {
            c = new HelloConn(id, owner, this::onCompletion);
            c.postRecv();
            id.context(c);
            conns.add(c);
            id.accept(new RdmaConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7)
                    .privateData(HelloWire.encode(new HelloWire.Remote(c.rdmaMr.iova(), c.rdmaMr.rkey(), HelloConn.BUF))));
            return 0;
        } catch (VerbsException | IllegalStateException e) {
            LOG.log(System.Logger.Level.WARNING, "hello: cannot accept on " + id.device() + ": " + e);
            if (c != null) {
                conns.remove(c);
                c.close();
            }
            return 1;
        }
    }

    /** A request in: answer it and repost the receive; a bad one is counted and dropped. */
    private void onCompletion(HelloConn c, HelloConn.Completion wc) {
        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.RECV) {
            return; // our SENDs completing, or the flush at disconnect
        }
        int n = answer(c, wc.byteLen());
        try {
            c.postRecv();
            if (n >= 0) {
                c.postSend(n);
                answered.incrementAndGet();
            } else {
                drops.incrementAndGet();
            }
        } catch (VerbsException e) {
            drops.incrementAndGet(); // the QP went to ERR under us (disconnect, device removal)
        }
    }

    /** Fills the send buffer with the answer to the request in the receive buffer; its length, or -1. */
    private static int answer(HelloConn c, int len) {
        if (len < 1) {
            return -1;
        }
        byte op = c.recvBuf.get(0);
        if (op == HelloWire.ECHO) {
            c.sendBuf.put(0, c.recvBuf, 1, len - 1);
            return len - 1;
        }
        if (op == HelloWire.ECHO_RDMA && len == 5) {
            int n = c.recvBuf.getInt(1);
            if (n < 0 || n > HelloConn.BUF) {
                return -1;
            }
            c.sendBuf.put(0, c.rdmaBuf, 0, n);
            return n;
        }
        return -1;
    }

    /** The listener, then every connection (QPs to ERR: outstanding work flushes; ids destroyed). */
    @Override
    public void close() {
        closed = true;
        listener.close();
        for (HelloConn c : conns) {
            if (conns.remove(c)) { // else a DISCONNECTED being handled has it
                c.close();
                c.id.close();
            }
        }
    }
}
