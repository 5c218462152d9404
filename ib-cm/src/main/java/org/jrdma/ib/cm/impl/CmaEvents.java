package org.jrdma.ib.cm.impl;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.core.VerbsException;

/**
 * Event delivery of the RDMA CM: one thread ("rdma-cm") runs the consumers' handlers, one event at a time, in
 * order, outside the CM's lock, so a handler may call back into the CM; a non-zero answer destroys the id.
 */
final class CmaEvents {
    private final RdmaCmService cm;
    private final CmThread thread = new CmThread("rdma-cm");

    CmaEvents(RdmaCmService cm) {
        this.cm = cm;
    }

    /**
     * Delivers {@code ev} on the CM thread; a non-zero answer destroys the id (for a request: rejects it).
     * The future is done once the handler has returned (device removal waits for it).
     */
    Future<?> dispatch(CmaId id, RdmaCmEvent ev) {
        try {
            return thread.submit(() -> {
                try {
                    run(id, ev);
                } finally {
                    handled(ev);
                }
            });
        } catch (RejectedExecutionException e) {
            handled(ev);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** A CONNECT_REQUEST no longer waits for its handler: its listener's backlog has room again. */
    private static void handled(RdmaCmEvent ev) {
        if (ev.type() == RdmaCmEventType.CONNECT_REQUEST && ev.listenId() instanceof CmaId l) {
            l.pendingRequests.decrementAndGet();
        }
    }

    /** Computes the event under the lock on the CM thread (null: nothing to deliver), then delivers it. */
    void deliver(CmaId id, Supplier<RdmaCmEvent> under) {
        thread.execute(() -> {
            RdmaCmEvent ev;
            synchronized (cm.lock) {
                if (id.destroyed) {
                    return;
                }
                ev = under.get();
            }
            if (ev != null) {
                run(id, ev);
            }
        });
    }

    private void run(CmaId id, RdmaCmEvent ev) {
        synchronized (cm.lock) {
            if (id.destroyed) {
                return;
            }
        }
        if (CmThread.answer("rdma_cm", ev, () -> id.handler.handle(id, ev)) != 0) {
            cm.destroyQp(id);
            cm.destroy(id);
        } else if (ev.type() == RdmaCmEventType.CONNECT_REQUEST) {
            synchronized (cm.lock) {
                // cma_ib_req_handler: not accepted or rejected yet -> ib_send_cm_mra(CMA_CM_MRA_SETTING), which
                // with IB_CM_MRA_FLAG_DELAY sends nothing now; duplicate REQs are answered with the MRA
                if (!id.destroyed && !id.sidr && id.state == CmState.REQ_RCVD) {
                    try {
                        id.ib.sendMra(RdmaCmService.MRA_SERVICE_TIMEOUT | IbCm.MRA_FLAG_DELAY, null);
                    } catch (VerbsException e) {
                        RdmaCmService.LOG.log(System.Logger.Level.DEBUG, "rdma_cm: no MRA: " + e);
                    }
                }
            }
        }
    }

    /** Waits (bounded) until the events queued so far have been handled (tests settle with it). */
    void drain() {
        thread.drain();
    }

    /** Stops the thread once it has run what is queued, and (unless called on it) waits for it to end. */
    void close() {
        thread.stop();
    }
}
