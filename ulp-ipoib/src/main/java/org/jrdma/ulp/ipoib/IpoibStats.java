package org.jrdma.ulp.ipoib;

import java.util.Map;

/**
 * {@code struct rtnl_link_stats64} as {@code ip -s link} shows it, plus {@code drops}: why packets were dropped, by
 * reason ({@code rx_short}, {@code rx_bad_ethertype}, {@code rx_bad_arp}, {@code rx_length}, {@code tx_oversize},
 * {@code tx_no_route}, {@code tx_unresolved}, {@code tx_no_path}, {@code tx_carrier}, {@code tx_ring_full},
 * {@code tx_removed}, ...). Bytes count the 4-byte IPoIB header and the payload.
 */
public record IpoibStats(long rxPackets, long rxBytes, long rxErrors, long rxDropped, long multicast,
        long txPackets, long txBytes, long txErrors, long txDropped, Map<String, Long> drops) {
}
