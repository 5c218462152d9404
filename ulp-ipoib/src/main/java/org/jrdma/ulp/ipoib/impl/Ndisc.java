package org.jrdma.ulp.ipoib.impl;

import java.net.Inet6Address;
import java.net.InetAddress;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * IPv6 neighbours by Neighbor Discovery (RFC 4861 with RFC 4391's link-layer address option; Linux's {@code ndisc.c}
 * on an IPoIB device): solicitations to the target's solicited-node group, advertisements back by the soliciting
 * node's path, the unsolicited NA, and the table ({@code nd_tbl}) they fill. No DAD, no router discovery, no NUD
 * probing of REACHABLE entries. Runs on the interface's thread.
 */
final class Ndisc {
    private final IpoibNetdev dev;
    private final Neighbours table;

    Ndisc(IpoibNetdev dev) {
        this.dev = dev;
        this.table = new Neighbours(dev, "ND", Encap.IPV6, this::solicit);
    }

    Neighbours table() {
        return table;
    }

    /**
     * A checked IPv6 packet of {@code len} bytes carrying an NS or NA ({@link NdMessage#is}): an invalid one
     * (RFC 4861 section 7.1) is counted as {@code rx_bad_nd}, a valid one received and handled.
     */
    void received(byte[] p, int len, boolean mcast) {
        NdMessage m;
        try {
            m = NdMessage.decode(p, len);
        } catch (NdMessage.Malformed e) {
            dev.counters().drop(Drop.RX_BAD_ND);
            return;
        }
        dev.counters().received(Encap.LEN + p.length, mcast);
        if (m.type() == NdMessage.NS) {
            solicitation(m, Ipv6.source(p));
        } else {
            advertisement(m);
        }
    }

    /**
     * {@code ndisc_recv_ns}: only for one of our addresses (else neither answered nor learnt); the sender learnt
     * from its source address option, then a solicited NA back to it; a DAD probe (from ::) is answered to all-nodes.
     */
    private void solicitation(NdMessage ns, Inet6Address src) {
        if (!dev.isLocal(ns.target())) {
            return;
        }
        if (Ipv6.isUnspecified(src)) {
            advertise(ns.target(), Ipv6.ALL_NODES, NdMessage.NA_OVERRIDE);
            return;
        }
        if (ns.lladdr() != null) {
            table.learned(src, ns.lladdr(), true, true);
        }
        advertise(ns.target(), src, NdMessage.NA_SOLICITED | NdMessage.NA_OVERRIDE);
    }

    /**
     * {@code ndisc_recv_na}: the target's entry, if there is one, takes the target address option (a REACHABLE one
     * only with the override flag); an NA for one of our own addresses changes nothing (no DAD here).
     */
    private void advertisement(NdMessage na) {
        if (na.lladdr() == null || dev.isLocal(na.target())) {
            return;
        }
        table.learned(na.target(), na.lladdr(), false, (na.flags() & NdMessage.NA_OVERRIDE) != 0);
    }

    /** {@code ndisc_send_na}: from the target address, with our address in the target option. */
    private void advertise(Inet6Address target, Inet6Address dst, int flags) {
        send(dst, new NdMessage(NdMessage.NA, flags, target, dev.hw()).encode(target, dst));
    }

    /** {@code ndisc_solicit}: an NS for {@code target} to its solicited-node group, with our source address option. */
    private void solicit(InetAddress target) {
        Inet6Address src = source(target);
        if (src != null) {
            Inet6Address group = Ipv6.solicitedNode(target);
            send(group, new NdMessage(NdMessage.NS, 0, (Inet6Address) target, dev.hw()).encode(src, group));
        }
    }

    /**
     * {@code ndisc_send_unsol_na} (NETDEV_CHANGEADDR): an NA with the override flag for each of our IPv6 addresses to
     * all-nodes, so the peers take our new hardware address, as the gratuitous ARP does for IPv4.
     */
    void announce() {
        if (dev.ud() == null) {
            return;
        }
        for (IfAddress a : dev.addresses()) {
            if (a.address() instanceof Inet6Address ip) {
                advertise(ip, Ipv6.ALL_NODES, NdMessage.NA_OVERRIDE);
            }
        }
    }

    /** A group by its MGID, a unicast address through the table. */
    private void send(Inet6Address dst, byte[] p) {
        if (dst.isMulticastAddress()) {
            dev.mcast().send(IpoibMgid.ipv6(dst, dev.pkey()), Encap.IPV6, p);
        } else {
            table.send(dst, p);
        }
    }

    /** {@code ipv6_dev_get_saddr} in short: our address on the target's prefix, else our link-local one. */
    private Inet6Address source(InetAddress target) {
        Inet6Address linkLocal = null;
        for (IfAddress a : dev.addresses()) {
            if (a.address() instanceof Inet6Address ip) {
                if (a.onLink(target) && ip.isLinkLocalAddress() == ((Inet6Address) target).isLinkLocalAddress()) {
                    return ip;
                }
                if (ip.isLinkLocalAddress() && linkLocal == null) {
                    linkLocal = ip;
                }
            }
        }
        return linkLocal;
    }
}
