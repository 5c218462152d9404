package org.jrdma.ulp.ipoib.impl;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * The path cache of one interface (Linux's {@code ipoib_path}, {@code path_rec_start}): a destination GID's SA
 * PathRecord and the address handle made from it. A packet to a GID without a path starts the SA query and waits
 * (up to {@value #MAX_QUEUE} per path, {@code IPOIB_MAX_PATH_REC_QUEUE}); the answer sends them, a failed query
 * drops them and forgets the path so the next packet asks again. Used only on the interface's thread.
 */
final class Paths {
    static final int MAX_QUEUE = 3;
    static final int QUERY_TIMEOUT_MS = 3000;

    private record Pending(int qpn, int ethertype, byte[] payload) {
    }

    private static final class Path {
        final Gid dgid;
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        PathRecord rec;
        AddressHandle ah;

        Path(Gid dgid) {
            this.dgid = dgid;
        }
    }

    private final IpoibNetdev dev;
    private final Map<Gid, Path> paths = new ConcurrentHashMap<>();

    Paths(IpoibNetdev dev) {
        this.dev = dev;
    }

    /** Sends to {@code dst} by its path, or queues while the SA is asked. */
    void send(HwAddr dst, int ethertype, byte[] payload) {
        Path p = paths.get(dst.gid());
        if (p != null && p.ah != null) {
            dev.txPath().post(p.ah, dst.qpn(), ethertype, payload);
            return;
        }
        if (p == null) {
            p = new Path(dst.gid());
            paths.put(dst.gid(), p);
            query(p);
        }
        if (p.queue.size() >= MAX_QUEUE) {
            dev.counters().drop(Drop.TX_QUEUE_FULL);
            return;
        }
        p.queue.add(new Pending(dst.qpn(), ethertype, payload));
    }

    private void query(Path p) {
        dev.sa().pathRecordGet(dev.ibDevice(), dev.port(), dev.gid(), p.dgid, QUERY_TIMEOUT_MS)
                .whenComplete((rec, err) -> dev.run(() -> answered(p, rec, err)));
    }

    private void answered(Path p, PathRecord rec, Throwable err) {
        if (paths.get(p.dgid) != p) {
            return; // flushed meanwhile: its queue was dropped then
        }
        if (err != null || dev.ud() == null) {
            paths.remove(p.dgid);
            dev.counters().drop(Drop.TX_NO_PATH, p.queue.size());
            return;
        }
        p.rec = rec;
        p.ah = dev.ud().pd.createAh(new AhAttr().portNum(dev.port()).dlid(rec.dlid).sl(rec.sl));
        Pending q;
        while ((q = p.queue.poll()) != null) {
            dev.txPath().post(p.ah, q.qpn, q.ethertype, q.payload);
        }
    }

    /** The path's record once the SA answered, else null. */
    PathRecord record(Gid dgid) {
        Path p = paths.get(dgid);
        return p == null ? null : p.rec;
    }

    /** Forgets every path ({@code ipoib_flush_paths}): AHs destroyed, queued packets dropped as {@code why}. */
    void flush(Drop why) {
        for (Path p : paths.values()) {
            dev.counters().drop(why, p.queue.size());
            if (p.ah != null) {
                p.ah.destroy();
            }
        }
        paths.clear();
    }
}
