package org.jrdma.hw.rxe.net;

/** The counters of a {@link NettyWire} (its sockets' side; the device counts packets in {@code RxeCounter}). */
public enum RxeNetCounter {
    /** Packets handed to the wire to send (to a bound address). */
    SENT("sent"),
    /** Datagrams read (a coalesced GRO read counts each packet). */
    RECEIVED("received"),
    /** Packets dropped: no channel for their source address, or the wire closed. */
    UNROUTABLE("unroutable"),
    /** Send or receive errors reported by a socket or the event loop. */
    SEND_ERRORS("errors"),
    /** sendmmsg(2) calls that sent something (a cork's or the held ACKs' datagrams, or a direct send of one). */
    SENDMMSGS("sendmmsgs"),
    /** GSO datagrams sent (each several packets; {@link #SENT} counts packets). */
    GSO_DATAGRAMS("gso_datagrams"),
    /** Packets that left inside GSO datagrams. */
    GSO_SEGMENTS("gso_segments"),
    /** Packets that left with their payload gathered from a memory region (not copied). */
    GATHERED_PACKETS("gathered"),
    /** Reads that returned a coalesced (GRO) buffer of several packets. */
    GRO_READS("gro_reads"),
    /** Times the receive thread read into its bounce buffer, every kept buffer being in use (packets copied out). */
    GRO_BOUNCED("gro_bounced");

    private final String label;

    RxeNetCounter(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
