package org.jrdma.ib.cm.tools;

import static org.jrdma.ib.cm.tools.Rping.IDLE;
import static org.jrdma.ib.cm.tools.Rping.INFO_SIZE;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;

import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WrOpcode;

/**
 * {@code struct rping_cb}: one connection (the listener's, on a server, until it is cloned), with the
 * work requests rping builds on its buffers and the release of everything it allocated.
 */
final class RpingCb {
    int server = -1;
    volatile int state = IDLE;
    final Semaphore sem = new Semaphore(0);
    /** The completion channel: one release per armed completion. */
    Semaphore channel;
    Thread cqThread;
    volatile boolean cqCancelled;

    ProtectionDomain pd;
    CompletionQueue cq;
    QueuePair qp;

    ByteBuffer recvBuf;
    MemoryRegion recvMr;
    ByteBuffer sendBuf;
    MemoryRegion sendMr;
    ByteBuffer rdmaBuf;
    MemoryRegion rdmaMr;
    ByteBuffer startBuf;
    MemoryRegion startMr;

    volatile int remoteRkey;
    volatile long remoteAddr;
    volatile int remoteLen;

    int verbose;
    boolean selfCreateQp;
    int count;
    int size = 64;
    int validate;

    RdmaCmId cmId;
    volatile RdmaCmId childCmId;
    /** Whether the QP was created on the child id (else on cmId). */
    boolean connected;

    /** {@code clone_cb}: the options of the listener, a fresh state and semaphore. */
    RpingCb cloneFor(RdmaCmId child) {
        RpingCb c = new RpingCb();
        c.server = server;
        c.state = state;
        c.verbose = verbose;
        c.selfCreateQp = selfCreateQp;
        c.count = count;
        c.size = size;
        c.validate = validate;
        c.cmId = cmId;
        c.childCmId = child;
        child.context(c);
        return c;
    }

    /** A new state for the test loop, which {@code sem_post} wakes. */
    void wake(int newState) {
        state = newState;
        sem.release();
    }

    /** The id the QP lives on. */
    RdmaCmId connId() {
        return server == 1 ? childCmId : cmId;
    }

    RecvWr recvWr() {
        return new RecvWr().sgList(new Sge(recvMr.iova(), INFO_SIZE, recvMr.lkey()));
    }

    /** {@code sq_wr}: the SEND of {@code send_buf}. */
    SendWr sqWr() {
        return new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(sendMr.iova(), INFO_SIZE, sendMr.lkey()));
    }

    /** {@code rdma_sq_wr}: an RDMA READ or WRITE of {@code length} bytes at the start of {@code rdma_buf}. */
    SendWr rdmaSqWr(WrOpcode op, int length) {
        return new SendWr().opcode(op).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(rdmaMr.iova(), length, rdmaMr.lkey()))
                .remote(remoteAddr, remoteRkey);
    }

    /** Posts a send work request; 0 or the negative errno. */
    int postSend(SendWr wr) {
        try {
            qp.postSend(wr);
            return 0;
        } catch (VerbsException e) {
            return -e.errno().value();
        }
    }

    /** {@code rping_disconnect}: errors (already disconnected by the peer) are ignored, as in C. */
    void disconnect(RdmaCmId id) {
        if (id == null || !connected) {
            return;
        }
        connected = false;
        try {
            id.disconnect();
        } catch (VerbsException e) {
            // rping ignores the result
        }
    }

    /**
     * Everything a connection allocated, in the order that frees cleanly: the CQ thread, the QP (a
     * connection cut short is disconnected first), the MRs, the CQ, the PD.
     */
    void free() {
        boolean interrupted = Thread.interrupted();
        try {
            if (connected) {
                disconnect(connId());
            }
            cqCancelled = true;
            RpingCq.join(this, 0);
            RdmaCmId id = connId();
            if (qp != null) {
                QueuePair q = qp;
                try {
                    if (id != null) {
                        id.destroyQp();
                    } else {
                        q.destroy();
                    }
                } catch (RuntimeException e) {
                    quietly(q::destroy);
                }
                qp = null;
            }
            for (MemoryRegion mr : new MemoryRegion[] {recvMr, sendMr, rdmaMr, startMr}) {
                if (mr != null) {
                    quietly(mr::dereg);
                }
            }
            recvMr = sendMr = rdmaMr = startMr = null;
            if (cq != null) {
                quietly(cq::destroy);
                cq = null;
            }
            if (pd != null) {
                quietly(pd::dealloc);
                pd = null;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void closeQuietly(RdmaCmId id) {
        if (id != null) {
            quietly(id::close);
        }
    }

    /** A release whose failure means the object is gone already (with its device). */
    static void quietly(Runnable release) {
        try {
            release.run();
        } catch (RuntimeException e) {
            // gone with its device
        }
    }

    // ------------------------------------------------------------------ C strings

    static int strlen(ByteBuffer b) {
        int n = 0;
        while (n < b.capacity() && b.get(n) != 0) {
            n++;
        }
        return n;
    }

    /** {@code printf("%s", buf)}: the bytes up to the NUL (ISO-8859-1, so every byte is one char). */
    static String cString(ByteBuffer b) {
        byte[] s = new byte[strlen(b)];
        b.get(0, s);
        return new String(s, StandardCharsets.ISO_8859_1);
    }
}
