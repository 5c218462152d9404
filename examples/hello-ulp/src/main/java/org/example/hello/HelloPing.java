package org.example.hello;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;

/**
 * hello's active side, one run: resolve the address and the route, create the QP, connect (the CM sends the
 * REQ, the server accepts with a REP, we answer with RTU), then a SEND echoed back and an RDMA WRITE read back
 * through the server, each compared byte for byte, then disconnect and free everything.
 */
final class HelloPing {
    /** What one run did. */
    record Result(String device, int srcPort, int qpn, int peerQpn, int sendBytes, int writeBytes) {
        @Override
        public String toString() {
            return String.format("hello: %s: RC qp 0x%x (port %d) -> qp 0x%x: SEND %d bytes and RDMA WRITE %d bytes "
                    + "echoed byte-exact", device, qpn, srcPort, peerQpn, sendBytes, writeBytes);
        }
    }

    private final BlockingQueue<RdmaCmEvent> events = new LinkedBlockingQueue<>();
    private final BlockingQueue<HelloConn.Completion> completions = new LinkedBlockingQueue<>();
    private final long timeoutMs;

    private HelloPing(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /** One connection from {@code src} to the hello server at {@code dst}; IOException says what went wrong. */
    static Result run(RdmaCm cm, IbClient owner, InetSocketAddress src, InetSocketAddress dst, int sendBytes,
            long timeoutMs) throws IOException, InterruptedException {
        if (sendBytes < 1 || sendBytes > HelloConn.BUF - 1) {
            throw new IllegalArgumentException("hello: size must be 1.." + (HelloConn.BUF - 1) + ", not " + sendBytes);
        }
        HelloPing p = new HelloPing(timeoutMs);
        RdmaCmId id = cm.createId((i, ev) -> {
            p.events.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        try {
            id.resolveAddr(src, dst, 2000);
            p.expect(RdmaCmEventType.ADDR_RESOLVED);
            id.resolveRoute(2000);
            p.expect(RdmaCmEventType.ROUTE_RESOLVED);
            try (HelloConn c = new HelloConn(id, owner, (conn, wc) -> p.completions.add(wc))) {
                return p.exchange(id, c, sendBytes);
            }
        } finally {
            id.close();
        }
    }

    private Result exchange(RdmaCmId id, HelloConn c, int sendBytes) throws IOException, InterruptedException {
        c.postRecv();
        id.connect(new RdmaConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
        HelloWire.Remote remote = HelloWire.decode(expect(RdmaCmEventType.ESTABLISHED).param().privateData());
        int peerQpn = c.qp.query().destQpNum();

        byte[] msg = random(sendBytes);
        c.sendBuf.put(0, HelloWire.ECHO).put(1, msg);
        c.postSend(1 + sendBytes);
        check("SEND", msg, awaitReply(c));

        int writeBytes = Math.min(HelloConn.BUF, remote.len());
        byte[] data = random(writeBytes);
        c.rdmaBuf.put(0, data);
        c.postWrite(writeBytes, remote.addr(), remote.rkey());
        c.sendBuf.put(0, HelloWire.ECHO_RDMA).putInt(1, writeBytes);
        c.postSend(5);
        check("RDMA WRITE", data, awaitReply(c));

        id.disconnect();
        expect(RdmaCmEventType.DISCONNECTED);
        return new Result(id.device().name(), id.portNum(), c.qp.qpNum(), peerQpn, sendBytes, writeBytes);
    }

    /** The next RECV's bytes (reposting the receive); our SENDs and WRITEs must have succeeded on the way. */
    private byte[] awaitReply(HelloConn c) throws IOException, InterruptedException {
        while (true) {
            HelloConn.Completion wc = completions.poll(timeoutMs, TimeUnit.MILLISECONDS);
            if (wc == null) {
                throw new IOException("hello: no reply within " + timeoutMs + " ms");
            }
            if (wc.status() != WcStatus.SUCCESS) {
                throw new IOException("hello: " + wc.opcode() + " completed with " + wc.status().message());
            }
            if (wc.opcode() == WcOpcode.RECV) {
                byte[] b = new byte[wc.byteLen()];
                c.recvBuf.get(0, b);
                c.postRecv();
                return b;
            }
        }
    }

    private RdmaCmEvent expect(RdmaCmEventType type) throws IOException, InterruptedException {
        RdmaCmEvent ev = events.poll(timeoutMs, TimeUnit.MILLISECONDS);
        if (ev == null) {
            throw new IOException("hello: no " + type.str() + " within " + timeoutMs + " ms");
        }
        if (ev.type() != type) {
            throw new IOException("hello: " + ev.type().str() + " (status " + ev.status() + ") instead of " + type.str());
        }
        return ev;
    }

    private static void check(String what, byte[] sent, byte[] back) throws IOException {
        if (!Arrays.equals(sent, back)) {
            throw new IOException("hello: " + what + " of " + sent.length + " bytes came back as " + back.length
                    + " bytes, first difference at " + Arrays.mismatch(sent, back));
        }
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
