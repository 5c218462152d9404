package org.jrdma.sw.rdmavt;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

/**
 * QP number to QP, for the packet path (one lookup per received packet: no lock, no allocation, no boxing) and
 * for create and destroy in constant time: a two-level radix table over the 24-bit QPN space (blocks of 4096
 * slots made on first use, freed when empty), and the per-port QP0/QP1 in a small array of their own. It replaced a table rebuilt
 * on every create and destroy, which made creating 16,000 QPs quadratic (a tester measured 14 s to destroy them).
 * {@link #all} is a snapshot for the timers' scans, rebuilt at most once per change.
 */
final class QpnTable<Q> {
    private static final int BLOCK_BITS = 12;
    private static final int BLOCK = 1 << BLOCK_BITS;
    private static final int QPN_BITS = 24;
    /** QP0/QP1 keys: port (1..255) * 2 + (GSI ? 1 : 0). */
    private static final int SPECIAL_SLOTS = 512;

    private final AtomicReferenceArray<AtomicReferenceArray<Q>> blocks =
            new AtomicReferenceArray<>(1 << (QPN_BITS - BLOCK_BITS));
    private final int[] blockCounts = new int[1 << (QPN_BITS - BLOCK_BITS)]; // under this
    private final AtomicReferenceArray<Q> special = new AtomicReferenceArray<>(SPECIAL_SLOTS);
    private final Set<Q> members = ConcurrentHashMap.newKeySet();
    private final AtomicLong version = new AtomicLong();
    private volatile Snapshot<Q> snapshot;

    private final IntFunction<Q[]> newArray;

    private record Snapshot<Q>(long version, Q[] qps) {
    }

    /** @param newArray makes the snapshot arrays ({@code RvtQp[]::new}) */
    QpnTable(IntFunction<Q[]> newArray) {
        this.newArray = newArray;
        this.snapshot = new Snapshot<>(0, newArray.apply(0));
    }

    /** The QP of number {@code qpn} (24 bits), or null. */
    Q get(int qpn) {
        if ((qpn >>> QPN_BITS) != 0) {
            return null;
        }
        AtomicReferenceArray<Q> b = blocks.get(qpn >>> BLOCK_BITS);
        return b == null ? null : b.get(qpn & (BLOCK - 1));
    }

    /** The SMI (QP0) or GSI (QP1) QP of {@code port}, or null. */
    Q special(int port, boolean gsi) {
        int k = specialSlot(port, gsi);
        return k < 0 ? null : special.get(k);
    }

    boolean contains(int qpn) {
        return get(qpn) != null;
    }

    synchronized void put(int qpn, Q qp) {
        int bi = qpn >>> BLOCK_BITS;
        AtomicReferenceArray<Q> b = blocks.get(bi);
        if (b == null) {
            b = new AtomicReferenceArray<>(BLOCK);
            blocks.set(bi, b);
        }
        Q old = b.getAndSet(qpn & (BLOCK - 1), qp);
        if (old == null) {
            blockCounts[bi]++;
        } else {
            members.remove(old);
        }
        members.add(qp);
        version.incrementAndGet();
    }

    synchronized void putSpecial(int port, boolean gsi, Q qp) {
        int k = specialSlot(port, gsi);
        if (k < 0) {
            throw new IllegalArgumentException("port " + port + " out of range 1..255");
        }
        Q old = special.getAndSet(k, qp);
        if (old != null) {
            members.remove(old);
        }
        members.add(qp);
        version.incrementAndGet();
    }

    /** Removes {@code qp} if it is the one under {@code qpn}. */
    synchronized void remove(int qpn, Q qp) {
        int bi = qpn >>> BLOCK_BITS;
        AtomicReferenceArray<Q> b = (qpn >>> QPN_BITS) != 0 ? null : blocks.get(bi);
        if (b != null && b.compareAndSet(qpn & (BLOCK - 1), qp, null)) {
            if (--blockCounts[bi] == 0) {
                blocks.set(bi, null); // a reader holding it still finds null in every slot
            }
            members.remove(qp);
            version.incrementAndGet();
        }
    }

    synchronized void removeSpecial(int port, boolean gsi, Q qp) {
        int k = specialSlot(port, gsi);
        if (k >= 0 && special.compareAndSet(k, qp, null)) {
            members.remove(qp);
            version.incrementAndGet();
        }
    }

    /** Every QP (QP0 and QP1 included) as of the call; the caller must not change the array. */
    Q[] all() {
        long v = version.get();
        Snapshot<Q> s = snapshot;
        if (s.version() == v) {
            return s.qps();
        }
        Q[] qps = members.toArray(newArray);
        snapshot = new Snapshot<>(v, qps); // a change meanwhile moved the version on: the next call collects again
        return qps;
    }

    private static int specialSlot(int port, boolean gsi) {
        return port < 1 || port > 255 ? -1 : port << 1 | (gsi ? 1 : 0);
    }
}
