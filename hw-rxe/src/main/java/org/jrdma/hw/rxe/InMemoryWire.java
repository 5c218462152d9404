package org.jrdma.hw.rxe;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;

/**
 * Connects {@link RxeDevice}s of one JVM by IP address. Packets are delivered on the wire's own thread
 * (never re-entrantly from {@link #send}). Seeded fault injection: drop, duplicate, reorder (a packet is
 * held back behind up to {@code reorderWindow} later ones) and corrupt (one byte flipped in a copy; the
 * receiver's ICRC check must catch it). A {@link #slowLink} makes what one address sends leave at a given rate
 * with periodic pauses (a slow or stalling peer: the Linux guest under TCG serves RDMA READs at ~15 MB/s and
 * pauses for longer than an ACK timeout).
 */
public final class InMemoryWire implements RxeWire, AutoCloseable {
    /** Fault rates in percent. */
    public record Faults(double dropPct, double duplicatePct, double reorderPct, int reorderWindow, double corruptPct) {
        public static final Faults NONE = new Faults(0, 0, 0, 0, 0);
    }

    private record Pkt(RxeDevice to, ByteBuf buf, InetAddress src, InetAddress dst, int srcPort) {
    }

    /** A packet of a slow link, due at {@code due} (System.nanoTime). */
    private record Timed(Pkt pkt, long due) implements java.util.concurrent.Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(due - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(java.util.concurrent.Delayed o) {
            return Long.compare(due, ((Timed) o).due);
        }
    }

    /** What one source address sends: {@code bytesPerSecond}, silent for {@code pauseNanos} of every period. */
    private static final class SlowLink {
        final long nanosPerKiB;
        final long periodNanos;
        final long pauseNanos;
        final long start = System.nanoTime();
        long lastDue;

        SlowLink(long bytesPerSecond, long periodNanos, long pauseNanos) {
            this.nanosPerKiB = 1_000_000_000L * 1024 / bytesPerSecond;
            this.periodNanos = periodNanos;
            this.pauseNanos = pauseNanos;
        }

        /** When a packet of {@code len} bytes sent now leaves: after the ones before it, never in a pause. */
        synchronized long due(int len) {
            long due = Math.max(System.nanoTime(), lastDue) + nanosPerKiB * len / 1024;
            long inPeriod = periodNanos > 0 ? (due - start) % periodNanos : Long.MAX_VALUE;
            if (inPeriod < pauseNanos) {
                due += pauseNanos - inPeriod;
            }
            lastDue = due;
            return due;
        }
    }

    private static final class Held {
        final Pkt pkt;
        int after;

        Held(Pkt pkt, int after) {
            this.pkt = pkt;
            this.after = after;
        }
    }

    private final Map<InetAddress, RxeDevice> hosts = new ConcurrentHashMap<>();
    private final McastGroups groups = new McastGroups();
    private final LinkedBlockingQueue<Pkt> queue = new LinkedBlockingQueue<>();
    private final Map<InetAddress, SlowLink> slow = new ConcurrentHashMap<>();
    private final java.util.concurrent.DelayQueue<Timed> timed = new java.util.concurrent.DelayQueue<>();
    private final Random random;
    private volatile Faults faults = Faults.NONE;
    private final Thread thread;
    private volatile boolean running = true;
    private final List<Held> held = new ArrayList<>();
    public final AtomicLong sent = new AtomicLong();
    public final AtomicLong dropped = new AtomicLong();
    public final AtomicLong duplicated = new AtomicLong();
    public final AtomicLong reordered = new AtomicLong();
    public final AtomicLong corrupted = new AtomicLong();
    /** Corruptions of BTH byte 4 (FECN, BECN, resv6a): the ICRC masks it, so the receiver cannot see them. */
    public final AtomicLong corruptedUnseen = new AtomicLong();
    public final AtomicLong unroutable = new AtomicLong();

    public InMemoryWire(long seed) {
        this.random = new Random(seed);
        this.thread = new Thread(this::deliverLoop, "rxe-inmemory-wire");
        thread.setDaemon(true);
        thread.start();
    }

    public void faults(Faults f) {
        this.faults = f;
    }

    /**
     * Unicast packets from {@code src} leave at {@code bytesPerSecond}, in order, and not at all during the first
     * {@code pauseMs} of every {@code periodMs} (0: no pauses). Fault injection still applies on delivery.
     */
    public void slowLink(InetAddress src, long bytesPerSecond, long periodMs, long pauseMs) {
        slow.put(src, new SlowLink(bytesPerSecond, periodMs * 1_000_000L, pauseMs * 1_000_000L));
    }

    /** Makes {@code dev} reachable at each of its addresses. */
    public void attach(RxeDevice dev) {
        for (InetAddress a : dev.addresses()) {
            hosts.put(a, dev);
        }
    }

    public void detach(RxeDevice dev) {
        hosts.values().removeIf(d -> d == dev);
        groups.forget(dev);
    }

    @Override
    public void joinGroup(RxeDevice dev, InetAddress group) {
        groups.join(dev, group);
    }

    @Override
    public void leaveGroup(RxeDevice dev, InetAddress group) {
        groups.leave(dev, group);
    }

    @Override
    public void send(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf packet) {
        sent.incrementAndGet();
        if (dst.isMulticastAddress()) {
            java.util.Set<RxeDevice> members = groups.members(dst);
            for (RxeDevice to : members) {
                if (running) {
                    queue.add(new Pkt(to, packet.copy(), src, dst, srcPort));
                }
            }
            if (members.isEmpty()) {
                unroutable.incrementAndGet();
            }
            packet.release();
            return;
        }
        RxeDevice to = hosts.get(dst);
        if (to == null || !running) {
            unroutable.incrementAndGet();
            packet.release();
            return;
        }
        SlowLink link = slow.get(src);
        if (link != null) {
            timed.add(new Timed(new Pkt(to, packet, src, dst, srcPort), link.due(packet.readableBytes())));
            return;
        }
        queue.add(new Pkt(to, packet, src, dst, srcPort));
    }

    private void deliverLoop() {
        while (running) {
            Pkt p;
            try {
                Timed t = timed.poll();
                p = t != null ? t.pkt() : queue.poll(timed.isEmpty() ? 1000 : 20, TimeUnit.MICROSECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (p == null) {
                flushHeld();
                continue;
            }
            Faults f = faults;
            if (chance(f.dropPct())) {
                dropped.incrementAndGet();
                p.buf.release();
                continue;
            }
            if (chance(f.duplicatePct())) {
                duplicated.incrementAndGet();
                deliverOrHold(new Pkt(p.to, p.buf.copy(), p.src, p.dst, p.srcPort), f);
            }
            deliverOrHold(p, f);
        }
        flushHeld();
        Pkt p;
        while ((p = queue.poll()) != null) {
            p.buf.release();
        }
        releaseTimed();
    }

    private void releaseTimed() {
        for (Timed t : timed) {
            t.pkt().buf.release();
        }
        timed.clear();
    }

    private void deliverOrHold(Pkt p, Faults f) {
        if (f.reorderWindow() > 0 && chance(f.reorderPct())) {
            reordered.incrementAndGet();
            held.add(new Held(p, 1 + random.nextInt(f.reorderWindow())));
            return;
        }
        deliver(p, f);
        for (int i = 0; i < held.size(); i++) {
            Held h = held.get(i);
            if (--h.after <= 0) {
                held.remove(i--);
                deliver(h.pkt, f);
            }
        }
    }

    private void flushHeld() {
        for (Held h : held) {
            deliver(h.pkt, faults);
        }
        held.clear();
    }

    private void deliver(Pkt p, Faults f) {
        ByteBuf b = p.buf;
        if (chance(f.corruptPct())) {
            corrupted.incrementAndGet();
            ByteBuf c = b.copy();
            b.release();
            b = c;
            int i = b.readerIndex() + random.nextInt(b.readableBytes());
            if (i == b.readerIndex() + 4) {
                corruptedUnseen.incrementAndGet();
            }
            b.setByte(i, b.getByte(i) ^ (1 << random.nextInt(8)));
        }
        if (!running) {
            b.release();
            return;
        }
        p.to.rcv(b, p.src, p.dst, p.srcPort);
    }

    private boolean chance(double pct) {
        return pct > 0 && random.nextDouble() * 100 < pct;
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Pkt p;
        while ((p = queue.poll()) != null) {
            p.buf.release();
        }
        for (Held h : held) {
            h.pkt.buf.release();
        }
        held.clear();
        releaseTimed();
    }
}
