package org.jrdma.ulp.ipoib.impl;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ulp.ipoib.Neighbour;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * A neighbour table of one interface (Linux's {@code neigh_table}: {@code arp_tbl} for IPv4 with {@link Arp},
 * {@code nd_tbl} for IPv6 with {@link Ndisc}; each protocol sends its own solicitations): a destination without an entry gets one INCOMPLETE, its packets wait (up to {@value #MAX_QUEUE_BYTES}
 * bytes, the oldest dropped first: {@code unres_qlen_bytes}'s default, {@code SK_WMEM_MAX}) while a solicitation is sent every {@value #RETRANS_MS} ms, at most
 * {@value #PROBES} times ({@code mcast_solicit}); then the entry is FAILED and its packets are dropped. An answer, or
 * a solicitation for one of our addresses, makes the sender REACHABLE ({@link #learned}). The RDMA CM's address resolution waits on an entry
 * as a packet does ({@link #resolve}).
 * No aging (REACHABLE stays), but the table is bounded
 * as Linux bounds {@code arp_tbl}: at {@value #MAX_ENTRIES} entries ({@code gc_thresh3}) a new one first makes a
 * forced GC ({@code neigh_forced_gc}) drop FAILED entries and then the oldest entries without waiting packets, down to
 * {@value #GC_THRESH2} ({@code gc_thresh2}); if none can go, the new entry is refused ("neighbour table overflow": the
 * packet that needed it is a counted tx_unresolved drop, an ARP sender is not learnt). Mutated only on the interface's thread; {@link #list} reads from any.
 */
final class Neighbours {
    static final int MAX_QUEUE_BYTES = 212_992;
    /** {@code net.ipv4.neigh.default.gc_thresh3}: the hard limit. */
    static final int MAX_ENTRIES = 1024;
    /** {@code gc_thresh2}: what a forced GC shrinks the table to. */
    static final int GC_THRESH2 = 512;
    static final int PROBES = 3;
    static final int RETRANS_MS = 1000;

    private static final class Entry {
        final InetAddress ip;
        /** Creation order, for the forced GC's oldest-first. */
        long created;
        final ArrayDeque<byte[]> queue = new ArrayDeque<>();
        /** The RDMA CM's address resolutions waiting for the answer ({@code addr.c}'s requests). */
        final List<CompletableFuture<HwAddr>> waiters = new ArrayList<>();
        int queuedBytes;
        volatile HwAddr hw;
        volatile Neighbour.State state = Neighbour.State.INCOMPLETE;
        int probes;
        Future<?> timer;

        Entry(InetAddress ip) {
            this.ip = ip;
        }
    }

    private final IpoibNetdev dev;
    /** "ARP" or "ND", for messages. */
    private final String proto;
    /** The EtherType of the packets waiting here. */
    private final int ethertype;
    /** Sends one solicitation for the address ({@code arp_solicit}, {@code ndisc_solicit}). */
    private final Consumer<InetAddress> solicit;
    private final Map<InetAddress, Entry> table = new ConcurrentHashMap<>();
    private long created;

    Neighbours(IpoibNetdev dev, String proto, int ethertype, Consumer<InetAddress> solicit) {
        this.dev = dev;
        this.proto = proto;
        this.ethertype = ethertype;
        this.solicit = solicit;
    }

    /** Sends a packet to the on-link {@code ip}: at once if resolved, else after the solicitation's answer. */
    void send(InetAddress ip, byte[] packet) {
        Entry e = table.get(ip);
        if (e != null && e.state == Neighbour.State.REACHABLE) {
            dev.txPath().unicast(e.hw, ethertype, packet);
            return;
        }
        e = unresolved(ip, e);
        if (e == null) {
            dev.counters().drop(Drop.TX_UNRESOLVED); // neighbour table overflow
            return;
        }
        while (!e.queue.isEmpty() && e.queuedBytes + packet.length > MAX_QUEUE_BYTES) {
            e.queuedBytes -= e.queue.poll().length;
            dev.counters().drop(Drop.TX_UNRESOLVED);
        }
        e.queue.add(packet);
        e.queuedBytes += packet.length;
    }

    /**
     * The RDMA CM's neighbour step ({@code rdma_resolve_ip}): {@code ip}'s hardware address, asked for if need be,
     * from any thread; fails with ETIMEDOUT after {@code timeoutMs} without an answer ({@code process_one_req}), ENODEV
     * if the interface goes away (so the future always completes).
     */
    CompletableFuture<HwAddr> resolve(InetAddress ip, int timeoutMs) {
        CompletableFuture<HwAddr> f = new CompletableFuture<>();
        // not dev.run(): its task is skipped once closing, and this future must still complete
        boolean queued = dev.runWhileClosing(() -> {
            if (dev.closing()) {
                f.completeExceptionally(new VerbsException(Errno.ENODEV, dev.name() + " is going away"));
                return;
            }
            resolve(ip, f);
            if (!f.isDone()) {
                Future<?> timer = dev.schedule(() -> f.completeExceptionally(new VerbsException(Errno.ETIMEDOUT,
                        dev.name() + ": no " + proto + " answer from " + ip.getHostAddress() + " in " + timeoutMs + " ms")), timeoutMs);
                f.whenComplete((hw, ex) -> timer.cancel(false));
            }
        });
        if (!queued) {
            f.completeExceptionally(new VerbsException(Errno.ENODEV, dev.name() + " is gone"));
        }
        return f;
    }

    /**
     * {@code addr.c}'s {@code dst_fetch_ha}: the neighbour's address at once when REACHABLE; else the request goes out
     * as for a packet ({@code neigh_event_send}) and {@code done} completes with the answer. A neighbour that never
     * answers leaves {@code done} to its caller's timeout (Linux keeps waiting until then, FAILED or not).
     */
    private void resolve(InetAddress ip, CompletableFuture<HwAddr> done) {
        Entry e = table.get(ip);
        if (e != null && e.state == Neighbour.State.REACHABLE) {
            done.complete(e.hw);
            return;
        }
        e = unresolved(ip, e);
        if (e == null) {
            done.completeExceptionally(new VerbsException(Errno.ENOMEM, dev.name() + ": neighbour table overflow"));
            return;
        }
        e.waiters.removeIf(CompletableFuture::isDone); // earlier ones that timed out
        e.waiters.add(done);
    }

    /**
     * The entry {@code e} for {@code ip}, or (none yet, or FAILED) a new INCOMPLETE one whose probes start; null when
     * the table is full (see {@link #create}).
     */
    private Entry unresolved(InetAddress ip, Entry e) {
        if (e == null || e.state == Neighbour.State.FAILED) {
            e = create(ip);
            if (e == null) {
                return null;
            }
            probe(e);
        }
        return e;
    }

    private void probe(Entry e) {
        if (e.state != Neighbour.State.INCOMPLETE || table.get(e.ip) != e) {
            return;
        }
        if (e.probes >= PROBES) {
            e.state = Neighbour.State.FAILED;
            dev.counters().drop(Drop.TX_UNRESOLVED, e.queue.size());
            e.queue.clear();
            e.queuedBytes = 0;
            return;
        }
        e.probes++;
        if (dev.ud() != null) {
            solicit.accept(e.ip);
        }
        e.timer = dev.schedule(() -> probe(e), RETRANS_MS);
    }

    /**
     * {@code ip} is at {@code hw} (RFC 826's merge, RFC 4861 section 7.2.5): a known entry is updated, a new one made
     * only if {@code create} (the message was for us); a REACHABLE entry keeps another address unless
     * {@code override} (an NA without O). The waiting packets and resolutions go.
     */
    void learned(InetAddress ip, HwAddr hw, boolean create, boolean override) {
        Entry e = table.get(ip);
        if (e == null && !create) {
            return;
        }
        if (e == null) {
            e = create(ip);
            if (e == null) {
                return; // the table is full of entries with packets waiting: the sender is not learnt
            }
        } else if (e.state == Neighbour.State.REACHABLE && !override && !hw.equals(e.hw)) {
            return;
        }
        e.hw = hw;
        e.state = Neighbour.State.REACHABLE;
        if (e.timer != null) {
            e.timer.cancel(false);
        }
        for (CompletableFuture<HwAddr> w : e.waiters) {
            w.complete(e.hw);
        }
        e.waiters.clear();
        byte[] p;
        e.queuedBytes = 0;
        while ((p = e.queue.poll()) != null) {
            dev.txPath().unicast(e.hw, ethertype, p);
        }
    }

    /** A new INCOMPLETE entry for {@code ip} (replacing a FAILED one), or null: table overflow. */
    private Entry create(InetAddress ip) {
        Entry old = table.get(ip);
        if (old == null && table.size() >= MAX_ENTRIES) {
            forcedGc();
            if (table.size() >= MAX_ENTRIES) {
                return null;
            }
        }
        if (old != null && old.timer != null) {
            old.timer.cancel(false);
        }
        Entry e = new Entry(ip);
        e.created = created++;
        table.put(ip, e);
        return e;
    }

    /** {@code neigh_forced_gc}: FAILED entries, then the oldest nothing waits on, down to gc_thresh2. */
    private void forcedGc() {
        table.values().removeIf(e -> e.state == Neighbour.State.FAILED);
        List<Entry> idle = new ArrayList<>();
        for (Entry e : table.values()) {
            if (e.queue.isEmpty() && e.waiters.stream().allMatch(CompletableFuture::isDone)) {
                idle.add(e); // nothing waits on it: no packet, no RDMA CM resolution
            }
        }
        idle.sort(java.util.Comparator.comparingLong(e -> e.created));
        for (int i = 0; i < idle.size() && table.size() > GC_THRESH2; i++) {
            Entry e = idle.get(i);
            if (e.timer != null) {
                e.timer.cancel(false);
            }
            table.remove(e.ip, e);
        }
    }

    List<Neighbour> list() {
        List<Neighbour> out = new ArrayList<>();
        for (Entry e : table.values()) {
            HwAddr hw = e.hw;
            PathRecord rec = hw == null ? null : dev.pathRecord(hw.gid());
            out.add(new Neighbour(e.ip, hw == null ? null : hw.bytes(), e.state, rec == null ? 0 : rec.dlid,
                    rec == null ? 0 : rec.sl));
        }
        return out;
    }

    /** Drops every waiting packet as {@code why} and stops the probes (interface going away). */
    void flush(Drop why) {
        for (Entry e : table.values()) {
            dev.counters().drop(why, e.queue.size());
            e.queue.clear();
            e.queuedBytes = 0;
            for (CompletableFuture<HwAddr> w : e.waiters) {
                w.completeExceptionally(new VerbsException(Errno.ENODEV, dev.name() + " is going away"));
            }
            e.waiters.clear();
            if (e.timer != null) {
                e.timer.cancel(false);
            }
        }
    }
}
