package org.jrdma.perftest;

import org.jrdma.ib.core.cli.Polling;
import org.jrdma.ib.core.cli.Exit;
import java.util.Arrays;

import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;

/**
 * {@code run_iter_bw} and {@code run_iter_bw_server} for one message size: the sender keeps up to
 * {@code tx_depth} WRs outstanding per QP and asks a completion every {@code cq_mod}; the SEND server
 * counts receives and reposts them. In duration mode ({@code -D}) the loops run until the
 * {@link DurationClock} ends and count what completed in its sample window. The counters are this
 * object's: one is made per size.
 */
final class BwIterations {
    private final Params p;
    private final PerfResources res;
    private final long size;
    private final int n;
    /** {@code -n}: per QP; in duration mode 0 (the loops run on the clock). */
    private final long iters;
    private final long totIters;
    private final long[] scnt;
    private final long[] ccnt;
    private final long[] tposted;
    private final long[] tcompleted;
    private final WorkCompletion[] wc = Perftest.wcs(16);
    private long totscnt;
    private long totccnt;
    /** Duration mode: what completed in the sample window. */
    private long sampled;
    private DurationClock clock;

    private BwIterations(Params p, PerfResources res, long size, int slots) {
        this.p = p;
        this.res = res;
        this.size = size;
        this.n = p.numOfQps;
        this.iters = p.iters;
        this.totIters = iters * n;
        this.scnt = new long[n];
        this.ccnt = new long[n];
        this.tposted = new long[slots];
        this.tcompleted = new long[slots];
    }

    /** {@code run_iter_bw}: the client's WRITEs, READs, atomics or SENDs to {@code rem}. */
    static Samples client(Params p, PerfResources res, Dest[] rem, long size) {
        BwIterations b = new BwIterations(p, res, size, (int) Math.max(1, p.iters * p.numOfQps));
        return b.runClient(rem);
    }

    /** {@code run_iter_bw_server}: the SEND server's receives. */
    static Samples server(Params p, PerfResources res, long size) {
        return new BwIterations(p, res, size, 1).runServer();
    }

    private Samples runClient(Dest[] rem) {
        SendWr[] wr = new SendWr[n];
        for (int i = 0; i < n; i++) {
            wr[i] = res.sendWr(i, size, rem[i]);
        }
        if (p.duration) {
            clock = DurationClock.started(p);
        }
        if (!p.duration && p.noPeak) {
            tposted[0] = System.nanoTime();
        }
        int empty = 0;
        while (totscnt < totIters || totccnt < totIters || (p.duration && clock.state() != DurationClock.END)) {
            for (int index = 0; index < n; index++) {
                postBurst(index, wr[index]);
            }
            if (totccnt < totIters || (p.duration && totccnt < totscnt)) {
                if (pollSend()) {
                    empty = 0;
                } else {
                    Polling.idle(empty++);
                }
            } else if (p.duration) {
                Polling.idle(empty++);
            }
        }
        if (p.noPeak && !p.duration) {
            tcompleted[0] = System.nanoTime();
        }
        return result();
    }

    /** Posts on QP {@code index} while it has room under tx depth (and iterations or time left). */
    private void postBurst(int index, SendWr wr) {
        while ((scnt[index] < iters || p.duration) && scnt[index] - ccnt[index] + 1 <= p.txDepth) {
            int flags;
            if (p.cqMod == 1 || scnt[index] % p.cqMod == p.cqMod - 1 || (!p.duration && scnt[index] == iters - 1)) {
                flags = SendFlags.SIGNALED;
            } else {
                flags = 0;
            }
            if (!p.noPeak) {
                tposted[(int) totscnt] = System.nanoTime();
            }
            if (p.duration && clock.state() == DurationClock.END) {
                break;
            }
            res.post(res.qps[index], wr.sendFlags(flags), "Couldn't post send: qp " + index + " scnt=" + scnt[index] + " \n");
            scnt[index]++;
            totscnt++;
        }
    }

    /** One poll of the send CQ; each completion stands for {@code cq_mod} WRs. False when it was empty. */
    private boolean pollSend() {
        int ne = res.bufs.sendCq().poll(wc, wc.length);
        if (ne <= 0) {
            return false;
        }
        for (int i = 0; i < ne; i++) {
            int id = (int) wc[i].wrId();
            if (wc[i].status() != WcStatus.SUCCESS) {
                res.completionError(wc[i], "client", "scnt=" + totscnt + ", ccnt=" + totccnt + "\n");
            }
            long add = p.cqMod;
            if (!p.duration && ccnt[id] + add > iters) {
                add = iters - ccnt[id]; // the last, explicitly signaled WR
            }
            ccnt[id] += add;
            totccnt += add;
            if (!p.noPeak) {
                tcompleted[(int) Math.min(totccnt, totIters) - 1] = System.nanoTime();
            }
            if (p.duration && clock.state() == DurationClock.SAMPLE) {
                sampled += p.cqMod;
            }
        }
        return true;
    }

    private Samples runServer() {
        long[] posted = new long[n];
        Arrays.fill(posted, p.rxDepth);
        RecvWr[] rwr = new RecvWr[n];
        for (int i = 0; i < n; i++) {
            rwr[i] = res.recvWr(i, size);
        }
        long rcnt = 0;
        boolean first = true;
        int empty = 0;
        while (rcnt < totIters || (p.duration && (clock == null || clock.state() != DurationClock.END))) {
            int ne = res.bufs.recvCq().poll(wc, wc.length);
            if (ne <= 0) {
                Polling.idle(empty++);
                continue;
            }
            empty = 0;
            if (first) {
                first = false;
                if (p.duration) {
                    clock = DurationClock.started(p);
                } else {
                    tposted[0] = System.nanoTime();
                }
            }
            for (int i = 0; i < ne; i++) {
                int id = (int) wc[i].wrId();
                if (wc[i].status() != WcStatus.SUCCESS) {
                    res.completionError(wc[i], "server", "rcnt=" + rcnt + "\n");
                }
                rcnt++;
                if (p.duration && clock.state() == DurationClock.SAMPLE) {
                    sampled++;
                }
                if (p.duration || posted[id] + 1 <= iters) {
                    repost(res.qps[id], rwr[id], id, rcnt);
                    posted[id]++;
                }
            }
        }
        if (!p.duration) {
            tcompleted[0] = System.nanoTime();
        }
        return result();
    }

    private void repost(QueuePair qp, RecvWr rwr, int id, long rcnt) {
        try {
            qp.postRecv(rwr);
        } catch (VerbsException e) {
            res.err.append("Couldn't post recv Qp=").append(id).append(" rcnt=").append(rcnt).append('\n');
            throw Exit.exit(15);
        }
    }

    /** Duration mode: the sample window in the first slots, and what was counted in it. */
    private Samples result() {
        if (!p.duration) {
            return new Samples(iters, tposted, tcompleted);
        }
        tposted[0] = clock.sampleStart;
        tcompleted[0] = clock.sampleEnd;
        return new Samples(sampled, tposted, tcompleted);
    }
}
