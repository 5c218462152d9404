package org.jrdma.ulp.ipoib;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One IPoIB interface ({@code struct net_device} of Linux's ipoib) on one InfiniBand port. Sends are asynchronous:
 * {@link #send} queues the packet to the interface's thread, which resolves the destination (ARP, SA PathRecord,
 * address handle) and posts it; what cannot be sent is counted in {@link #stats()} ({@code tx_dropped} and the
 * reason in {@code drops}).
 */
public interface IpoibInterface {
    /** {@code ib0}, {@code ib1}, ... */
    String name();

    /** The interface index ({@code ip link}'s first column), never reused. */
    int ifindex();

    /** The IB device and port under the interface. */
    String device();

    int port();

    /** The 20-byte hardware address: flags, the UD QPN (24 bits), the port GID (RFC 4391 section 9.1.1). */
    byte[] hwAddr();

    /** The broadcast address: QPN 0xffffff and the broadcast MGID {@code ff12:401b:PKEY::ffff:ffff}. */
    byte[] broadcast();

    /** The P_Key of the interface (with the full-member bit). */
    int pkey();

    int mtu();

    /** {@code tx_queue_len}: twice the send ring, as Linux's ipoib sets it ({@code ip link}'s {@code qlen}). */
    int txQueueLen();

    IpoibMode mode();

    /**
     * {@code echo connected > /sys/class/net/ibN/mode} ({@code ipoib_set_mode}): connected mode sets the hardware
     * address's {@code IPOIB_FLAGS_RC} bit, listens for RC connections and raises the MTU to 65520; datagram mode
     * closes every connection and clamps the MTU to the broadcast group's (2044).
     *
     * @throws UnsupportedOperationException without an IB CM (connected mode cannot be offered)
     */
    void setMode(IpoibMode mode);

    /**
     * {@code ip link set NAME mtu N} ({@code ipoib_change_mtu}): 68..65520 in connected mode; in datagram mode up to
     * the port's IB MTU less 4, and the MTU in effect is the smaller of it and the broadcast group's.
     *
     * @throws IllegalArgumentException with iproute2's message when out of range
     */
    void setMtu(int mtu);

    /** The connected-mode RC connections, active ({@code ipoib_cm_tx}) and passive ({@code ipoib_cm_rx}). */
    List<CmConnection> connections();

    OperState state();

    /** {@code IFF_UP}: administratively up ({@code ip link set NAME up}); interfaces are up from creation. */
    boolean isUp();

    /**
     * {@code ip link set NAME up|down} ({@code ipoib_open} / {@code ipoib_stop}): down closes every connected-mode
     * connection and the CM side, leaves the multicast groups and takes the carrier off; up joins again (and listens
     * again in connected mode). The UD QP stays, so the hardware address does not change.
     */
    void setUp(boolean up);

    IpoibStats stats();

    List<IfAddress> addresses();

    /**
     * {@code ip addr add ADDRESS/PREFIX dev NAME}: an IPv4 address this interface answers ARP for, or an IPv6 one it
     * answers Neighbor Solicitations for (its solicited-node group joined). The link-local {@code fe80::} address
     * from the port GUID is added by the interface itself on its first link up, as the kernel's addrconf does.
     *
     * @throws IllegalArgumentException for a multicast or unspecified address
     * @throws IllegalStateException when the interface has it already ("RTNETLINK answers: File exists")
     */
    void addAddress(InetAddress address, int prefix);

    /** {@code ip addr del}; false if the interface had no such address. */
    boolean removeAddress(InetAddress address, int prefix);

    List<Neighbour> neighbours();

    /**
     * The multicast groups joined as a full member: IPv4 ones with {@link #joinGroup}, IPv6 ones with it and those
     * addrconf joins ({@code ff02::1}, the solicited-node group of each IPv6 address); the broadcast group not
     * included.
     */
    List<InetAddress> groups();

    /**
     * {@code IP_ADD_MEMBERSHIP} / {@code IPV6_ADD_MEMBERSHIP}: join the multicast group's MGID (RFC 4391 section 4,
     * signature 0x401B or 0x601B) as a full member;
     * completes when the group's traffic reaches {@link #setReceiver}, exceptionally if the SA refuses.
     */
    CompletableFuture<Void> joinGroup(InetAddress group);

    /** {@code IP_DROP_MEMBERSHIP}. */
    CompletableFuture<Void> leaveGroup(InetAddress group);

    /**
     * Queues an IPv4 or IPv6 packet (starting with its IP header) for sending: resolved by ARP or Neighbor Discovery,
     * multicast to its MGID; the buffer's remaining bytes are copied.
     */
    void send(ByteBuffer ipPacket);

    /**
     * The receiver of IP packets (never ARP, nor IPv6 Neighbor Solicitations and Advertisements: the interface
     * handles those). Null: ICMP and ICMPv6 echo requests to the interface's addresses are answered (as the kernel
     * does), everything else is counted and dropped ({@code rx_no_receiver}).
     */
    void setReceiver(IpoibReceiver receiver);

    IpoibReceiver receiver();
}
