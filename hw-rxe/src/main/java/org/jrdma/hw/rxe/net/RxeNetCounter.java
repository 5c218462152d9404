package org.jrdma.hw.rxe.net;

/** The counters of a {@link NettyWire} (its sockets' side; the device counts packets in {@code RxeCounter}). */
public enum RxeNetCounter {
    /** Packets handed to the wire to send (to a bound address). */
    SENT,
    /** Datagrams read (a coalesced GRO read counts each packet). */
    RECEIVED,
    /** Packets dropped: no channel for their source address, or the wire closed. */
    UNROUTABLE,
    /** Send or receive errors reported by a socket or the event loop. */
    ERRORS,
    /** sendmmsg(2) calls that sent something (a cork's or the held ACKs' datagrams, or a direct send of one). */
    SENDMMSGS,
    /** GSO datagrams sent (each several packets; {@link #SENT} counts packets). */
    GSO_DATAGRAMS,
    /** Packets that left inside GSO datagrams. */
    GSO_SEGMENTS,
    /** Packets that left with their payload gathered from a memory region (not copied). */
    GATHERED,
    /** Reads that returned a coalesced (GRO) buffer of several packets. */
    GRO_READS,
    /** Times the receive thread read into its bounce buffer, every kept buffer being in use (packets copied out). */
    GRO_BOUNCED;

    /** The name as the benchmarks print it ({@code gso_datagrams=...}). */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
