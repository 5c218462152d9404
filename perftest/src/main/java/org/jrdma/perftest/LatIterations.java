package org.jrdma.perftest;

import org.jrdma.ib.core.cli.Polling;
import org.jrdma.ib.core.cli.Exit;
import java.lang.invoke.VarHandle;

import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.perftest.Params.Machine;

/**
 * {@code run_iter_lat_write}, {@code run_iter_lat} and {@code run_iter_lat_send} for one message size:
 * one message in flight, the time of each post kept. The WRITE ping-pong spins on the last byte of its
 * buffer for the peer's WRITE; READ and atomics wait for their own completion; the SEND ping-pong
 * answers each receive. In duration mode ({@code -D}) they run until the {@link DurationClock} ends and
 * count what completed in its sample window. The counters are this object's: one is made per size.
 */
final class LatIterations {
    private final Params p;
    private final PerfResources res;
    private final long size;
    private final long[] tposted;
    private final WorkCompletion[] wc = Perftest.wcs(1);
    /** {@code -n}; 0 in duration mode once the clock runs. */
    private long iters;
    private long scnt;
    private long ccnt;
    private long rcnt;
    /** Duration mode: what completed in the sample window. */
    private long sampled;
    private DurationClock clock;
    private boolean firstRx = true;

    private LatIterations(Params p, PerfResources res, long size) {
        this.p = p;
        this.res = res;
        this.size = size;
        this.iters = p.iters;
        this.tposted = new long[(int) Math.max(1, iters)];
    }

    /** {@code run_iter_lat_write}. */
    static Samples write(Params p, PerfResources res, Dest rem, long size) {
        return new LatIterations(p, res, size).runWrite(rem);
    }

    /** {@code run_iter_lat}: READ or atomic, the client only. */
    static Samples readAtomic(Params p, PerfResources res, Dest rem, long size) {
        return new LatIterations(p, res, size).runReadAtomic(rem);
    }

    /** {@code run_iter_lat_send}. */
    static Samples send(Params p, PerfResources res, Dest rem, long size) {
        return new LatIterations(p, res, size).runSend(rem);
    }

    private void startClock() {
        clock = DurationClock.started(p);
        iters = 0;
    }

    private boolean ended() {
        return p.duration && clock.state() == DurationClock.END;
    }

    private void countSample() {
        if (p.duration && clock.state() == DurationClock.SAMPLE) {
            sampled++;
        }
    }

    private Samples runWrite(Dest rem) {
        SendWr wr = res.sendWr(0, size, rem).sendFlags(SendFlags.SIGNALED);
        int postAt = (int) (size - 1);
        int pollAt = (int) (p.numOfQps * res.bufs.buffSize() + size - 1);
        if (p.duration) {
            startClock();
        }
        while (scnt < iters || ccnt < iters || rcnt < iters || (p.duration && clock.state() != DurationClock.END)) {
            if ((rcnt < iters || p.duration) && !(scnt < 1 && p.machine == Machine.SERVER)) {
                rcnt++;
                int spins = 0;
                while (res.readByte(pollAt) != (byte) rcnt && !ended()) {
                    Polling.idle(spins++);
                }
            }
            if (scnt < iters || p.duration) {
                if (!p.duration) {
                    tposted[(int) scnt] = System.nanoTime();
                }
                res.bufs.buf().put(postAt, (byte) ++scnt);
                VarHandle.fullFence();
                res.post(res.qps[0], wr, "Couldn't post send: scnt=" + scnt + "\n");
            }
            if (ended()) {
                break;
            }
            if (ccnt < iters || p.duration) {
                PerfResources.awaitOne(res.bufs.sendCq(), wc);
                if (wc[0].status() != WcStatus.SUCCESS) {
                    res.completionError(wc[0], "client", "scnt=" + scnt + ", ccnt=" + ccnt + "\n");
                }
                ccnt++;
                countSample();
            }
        }
        return result();
    }

    private Samples runReadAtomic(Dest rem) {
        SendWr wr = res.sendWr(0, size, rem).sendFlags(SendFlags.SIGNALED);
        if (p.duration) {
            startClock();
        }
        while (scnt < iters || (p.duration && clock.state() != DurationClock.END)) {
            if (!p.duration) {
                tposted[(int) scnt++] = System.nanoTime();
            }
            res.post(res.qps[0], wr, "Couldn't post send: scnt=" + scnt + "\n");
            if (ended()) {
                break;
            }
            PerfResources.awaitOne(res.bufs.sendCq(), wc);
            if (wc[0].status() != WcStatus.SUCCESS) {
                res.completionError(wc[0], "client", "scnt=" + scnt + ", ccnt=" + scnt + "\n");
            }
            countSample();
        }
        return result();
    }

    private Samples runSend(Dest rem) {
        SendWr wr = res.sendWr(0, size, rem);
        RecvWr rwr = res.recvWr(0, size);
        while (scnt < iters || rcnt < iters || (p.duration && (clock == null || clock.state() != DurationClock.END))) {
            if ((rcnt < iters || p.duration) && !(scnt < 1 && p.machine == Machine.CLIENT)) {
                receive(rwr);
            }
            if (p.duration && p.machine == Machine.CLIENT && clock == null) {
                startClock();
            }
            if (scnt < iters || (p.duration && clock.state() != DurationClock.END)) {
                if (!p.duration) {
                    tposted[(int) scnt] = System.nanoTime();
                }
                scnt++;
                boolean signal = scnt % p.cqMod == 0 || (!p.duration && scnt == iters);
                if (ended()) {
                    break;
                }
                res.post(res.qps[0], wr.sendFlags(signal ? SendFlags.SIGNALED : 0), "Couldn't post send: scnt=" + scnt + " \n");
                if (signal) {
                    PerfResources.awaitOne(res.bufs.sendCq(), wc);
                    if (wc[0].status() != WcStatus.SUCCESS) {
                        res.completionError(wc[0], "client", "scnt=" + scnt + ", ccnt=" + scnt + "\n");
                    }
                }
            }
        }
        return result();
    }

    /** The SEND ping-pong's receive: wait for it (the first one starts the clock), repost while more are to come. */
    private void receive(RecvWr rwr) {
        int empty = 0;
        int ne;
        while ((ne = res.bufs.recvCq().poll(wc, 1)) == 0) {
            if (p.duration && clock != null && clock.state() == DurationClock.END) {
                break;
            }
            Polling.idle(empty++);
        }
        if (ne <= 0) {
            return;
        }
        if (firstRx) {
            firstRx = false;
            if (p.duration) {
                startClock(); // the client's clock, started before its first send, starts again here
            }
        }
        if (wc[0].status() != WcStatus.SUCCESS) {
            res.completionError(wc[0], "server", "rcnt=" + rcnt + "\n");
        }
        rcnt++;
        countSample();
        if (p.duration || rcnt + p.rxDepth <= iters) {
            try {
                res.qps[0].postRecv(rwr);
            } catch (VerbsException e) {
                res.err.append("Couldn't post recv: rcnt=").append(rcnt).append('\n');
                throw Exit.exit(15);
            }
        }
    }

    /** Duration mode: the sample window, and what was counted in it. */
    private Samples result() {
        if (p.duration) {
            return Samples.window(sampled, clock);
        }
        return new Samples(iters, tposted, new long[0]);
    }
}
