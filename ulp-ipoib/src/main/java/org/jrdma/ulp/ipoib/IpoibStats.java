package org.jrdma.ulp.ipoib;

import java.util.Map;

/**
 * {@code struct rtnl_link_stats64} as {@code ip -s link} shows it, plus {@code drops}: why packets were dropped, by
 * reason ({@code rx_short}, {@code rx_bad_ethertype}, {@code rx_bad_arp}, {@code rx_length}, {@code tx_oversize},
 * {@code tx_no_route}, {@code tx_unresolved}, {@code tx_no_path}, {@code tx_carrier}, {@code tx_ring_full},
 * {@code tx_removed}, ...). Bytes count the 4-byte IPoIB header and the payload. The {@code rc*} counters are the
 * part of the totals that went over connected-mode RC connections (RFC 4755).
 */
public record IpoibStats(long rxPackets, long rxBytes, long rxErrors, long rxDropped, long multicast,
        long txPackets, long txBytes, long txErrors, long txDropped, Map<String, Long> drops, long rcRxPackets,
        long rcRxBytes, long rcTxPackets, long rcTxBytes) {
    /** Without connected-mode counters (1.0.0's shape). */
    public IpoibStats(long rxPackets, long rxBytes, long rxErrors, long rxDropped, long multicast, long txPackets,
            long txBytes, long txErrors, long txDropped, Map<String, Long> drops) {
        this(rxPackets, rxBytes, rxErrors, rxDropped, multicast, txPackets, txBytes, txErrors, txDropped, drops, 0, 0,
                0, 0);
    }
}
