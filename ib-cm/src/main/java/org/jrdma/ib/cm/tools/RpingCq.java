package org.jrdma.ib.cm.tools;

import static org.jrdma.ib.cm.tools.Rping.CONNECTED;
import static org.jrdma.ib.cm.tools.Rping.ERROR;
import static org.jrdma.ib.cm.tools.Rping.INFO_SIZE;
import static org.jrdma.ib.cm.tools.Rping.RDMA_READ_ADV;
import static org.jrdma.ib.cm.tools.Rping.RDMA_READ_COMPLETE;
import static org.jrdma.ib.cm.tools.Rping.RDMA_WRITE_ADV;
import static org.jrdma.ib.cm.tools.Rping.RDMA_WRITE_COMPLETE;

import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;

/**
 * rping's completion side ({@code cq_thread}, {@code rping_cq_event_handler}, the server's and client's
 * receive handlers): one thread per connection waits on the completion channel, drains the CQ and
 * moves the connection's state, waking the test loop through its semaphore.
 */
final class RpingCq {
    private RpingCq() {
    }

    /** {@code rping_cq_event_handler}: 0, 1 when a flushed completion was seen, -1 on an error. */
    static int handleEvent(Rping.Tool t, RpingCb c) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        int ret;
        boolean flushed = false;
        while (true) {
            try {
                ret = c.cq.poll(wcs, 1);
            } catch (VerbsException e) {
                ret = -e.errno().value();
            }
            if (ret != 1) {
                break;
            }
            ret = 0;
            WorkCompletion wc = wcs[0];
            if (wc.status() != WcStatus.SUCCESS) {
                if (wc.status() == WcStatus.WR_FLUSH_ERR) {
                    flushed = true;
                    continue;
                }
                t.err.print("cq completion failed status " + wc.status().ordinal() + "\n");
                return cqError(c, -1);
            }
            switch (wc.opcode()) {
                case SEND -> t.debug("send completion\n");
                case RDMA_WRITE -> {
                    t.debug("rdma write completion\n");
                    c.wake(RDMA_WRITE_COMPLETE);
                }
                case RDMA_READ -> {
                    t.debug("rdma read completion\n");
                    c.wake(RDMA_READ_COMPLETE);
                }
                case RECV -> {
                    t.debug("recv completion\n");
                    ret = c.server == 1 ? serverRecv(t, c, wc) : clientRecv(t, c, wc);
                    if (ret != 0) {
                        t.err.print("recv wc error: " + ret + "\n");
                        return cqError(c, ret);
                    }
                    try {
                        c.qp.postRecv(c.recvWr());
                    } catch (VerbsException e) {
                        ret = -e.errno().value();
                        t.err.print("post recv error: " + ret + "\n");
                        return cqError(c, ret);
                    }
                    c.sem.release();
                }
                default -> {
                    t.debug("unknown!!!!! completion\n");
                    return cqError(c, -1);
                }
            }
        }
        if (ret != 0) {
            t.err.print("poll error " + ret + "\n");
            return cqError(c, ret);
        }
        return flushed ? 1 : 0;
    }

    private static int cqError(RpingCb c, int ret) {
        c.wake(ERROR);
        return ret;
    }

    private static int serverRecv(Rping.Tool t, RpingCb c, WorkCompletion wc) {
        if (wc.byteLen() != INFO_SIZE) {
            t.err.print("Received bogus data, size " + wc.byteLen() + "\n");
            return -1;
        }
        c.remoteRkey = c.recvBuf.getInt(8);
        c.remoteAddr = c.recvBuf.getLong(0);
        c.remoteLen = c.recvBuf.getInt(12);
        t.debug("Received rkey " + Integer.toHexString(c.remoteRkey) + " addr " + Long.toHexString(c.remoteAddr)
                + " len " + c.remoteLen + " from peer\n");
        if (c.state <= CONNECTED || c.state == RDMA_WRITE_COMPLETE) {
            c.state = RDMA_READ_ADV;
        } else {
            c.state = RDMA_WRITE_ADV;
        }
        return 0;
    }

    private static int clientRecv(Rping.Tool t, RpingCb c, WorkCompletion wc) {
        if (wc.byteLen() != INFO_SIZE) {
            t.err.print("Received bogus data, size " + wc.byteLen() + "\n");
            return -1;
        }
        if (c.state == RDMA_READ_ADV) {
            c.state = RDMA_WRITE_ADV;
        } else {
            c.state = RDMA_WRITE_COMPLETE;
        }
        return 0;
    }

    /** {@code cq_thread}. */
    static void start(Rping.Tool t, RpingCb c) {
        Thread thread = new Thread(() -> {
            t.debug("cq_thread started.\n");
            while (!c.cqCancelled) {
                try {
                    if (!c.channel.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                } catch (InterruptedException e) {
                    return; // pthread_cancel
                }
                if (c.cqCancelled) {
                    return;
                }
                if (!c.cq.isValid()) {
                    t.err.print("Failed to get cq event!\n");
                    return;
                }
                try {
                    c.cq.reqNotify(CqNotify.NEXT_COMP, false);
                } catch (VerbsException e) {
                    t.err.print("Failed to set notify!\n");
                    return;
                }
                if (handleEvent(t, c) != 0) {
                    return;
                }
            }
        }, "rping-cq");
        thread.setDaemon(true);
        c.cqThread = thread;
        thread.start();
    }

    /**
     * {@code pthread_join(cqthread)}: the thread ends by itself once the disconnect flushed the
     * receive; if that does not come (the CM left the QP alone), it is cancelled after a while.
     */
    static void join(RpingCb c, long waitMs) {
        Thread t = c.cqThread;
        if (t == null) {
            return;
        }
        boolean interrupted = false;
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
            while (t.isAlive() && System.nanoTime() - deadline < 0) {
                try {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                } catch (InterruptedException e) {
                    interrupted = true;
                    break;
                }
            }
            c.cqCancelled = true;
            t.interrupt();
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            c.cqThread = null;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
