package org.jrdma.ulp.ipoib.impl;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.jrdma.ulp.ipoib.IpoibStats;

/** An interface's {@code rtnl_link_stats64} and its drops by reason; written on its thread, read from any. */
final class Counters {
    final LongAdder rxPackets = new LongAdder();
    final LongAdder rxBytes = new LongAdder();
    final LongAdder rxErrors = new LongAdder();
    final LongAdder multicast = new LongAdder();
    final LongAdder txPackets = new LongAdder();
    final LongAdder txBytes = new LongAdder();
    final LongAdder txErrors = new LongAdder();
    final LongAdder rcRxPackets = new LongAdder();
    final LongAdder rcRxBytes = new LongAdder();
    final LongAdder rcTxPackets = new LongAdder();
    final LongAdder rcTxBytes = new LongAdder();
    private final Map<Drop, LongAdder> drops = new ConcurrentHashMap<>();

    /** Why a packet was dropped: the reason names {@link IpoibStats#drops()} uses. */
    enum Drop {
        RX_SHORT(true), RX_BAD_ETHERTYPE(true), RX_BAD_ARP(true), RX_LENGTH(true), RX_NO_RECEIVER(true),
        /** An NS/NA that RFC 4861 section 7.1 says to discard (hop limit, checksum, length, options). */
        RX_BAD_ND(true),
        TX_OVERSIZE(false), TX_NO_ROUTE(false), TX_UNRESOLVED(false), TX_NO_PATH(false), TX_NO_GROUP(false),
        TX_CARRIER(false), TX_RING_FULL(false), TX_QUEUE_FULL(false), TX_REMOVED(false), TX_NOT_IP(false),
        /** More packets than a connection being set up holds. */
        TX_CM_QUEUE_FULL(false),
        /** Waiting for a connection that was closed (DREQ, mode switch, send error). */
        TX_CM_FLUSH(false);

        final boolean rx;

        Drop(boolean rx) {
            this.rx = rx;
        }

        String key() {
            return name().toLowerCase();
        }
    }

    void drop(Drop why) {
        drops.computeIfAbsent(why, k -> new LongAdder()).increment();
    }

    void drop(Drop why, int n) {
        if (n > 0) {
            drops.computeIfAbsent(why, k -> new LongAdder()).add(n);
        }
    }

    void received(int bytes, boolean mcast) {
        rxPackets.increment();
        rxBytes.add(bytes);
        if (mcast) {
            multicast.increment();
        }
    }

    void sent(int bytes) {
        txPackets.increment();
        txBytes.add(bytes);
    }

    /** A frame received on a connection; counted in the totals too. */
    void rcReceived(int bytes) {
        rcRxPackets.increment();
        rcRxBytes.add(bytes);
    }

    /** A frame posted on a connection; counted in the totals too. */
    void rcSent(int bytes) {
        sent(bytes);
        rcTxPackets.increment();
        rcTxBytes.add(bytes);
    }

    IpoibStats snapshot() {
        Map<String, Long> by = new TreeMap<>();
        long rxDropped = 0;
        long txDropped = 0;
        for (Map.Entry<Drop, LongAdder> e : drops.entrySet()) {
            long n = e.getValue().sum();
            by.put(e.getKey().key(), n);
            if (e.getKey().rx) {
                rxDropped += n;
            } else {
                txDropped += n;
            }
        }
        return new IpoibStats(rxPackets.sum(), rxBytes.sum(), rxErrors.sum(), rxDropped, multicast.sum(),
                txPackets.sum(), txBytes.sum(), txErrors.sum(), txDropped, Map.copyOf(by), rcRxPackets.sum(),
                rcRxBytes.sum(), rcTxPackets.sum(), rcTxBytes.sum());
    }
}
