package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.InetAddress;

import org.jrdma.ulp.ipoib.IfAddress;

/**
 * IPv4 neighbours by ARP (RFC 826 as RFC 4391 section 8 uses it; Linux's {@code arp.c} for {@code ARPHRD_INFINIBAND}):
 * requests broadcast to the broadcast group, replies by the requester's path, the gratuitous ARP, and the
 * table ({@code arp_tbl}) they fill. Runs on the interface's thread.
 */
final class Arp {
    private final IpoibNetdev dev;
    private final Neighbours table;

    Arp(IpoibNetdev dev) {
        this.dev = dev;
        this.table = new Neighbours(dev, "ARP", Encap.IPV4, this::solicit);
    }

    Neighbours table() {
        return table;
    }

    /** A valid ARP packet arrived: the sender merged (learnt if the packet is for us), a request for us answered. */
    void received(ArpPacket a) {
        boolean forUs = dev.isLocal(a.targetIp());
        table.learned(a.senderIp(), a.senderHw(), forUs, true);
        if (a.op() == ArpPacket.REQUEST && forUs) {
            reply(a);
        }
    }

    /** {@code arp_solicit}: a request from the address on the target's subnet, to the broadcast group. */
    private void solicit(InetAddress target) {
        IfAddress src = dev.addresses().stream().filter(a -> a.onLink(target)).findFirst().orElse(null);
        if (src != null) {
            broadcastRequest((Inet4Address) src.address(), (Inet4Address) target);
        }
    }

    /** An ARP request from {@code sender} for {@code target}, to the broadcast group. */
    private void broadcastRequest(Inet4Address sender, Inet4Address target) {
        ArpPacket req = new ArpPacket(ArpPacket.REQUEST, dev.hw(), sender, null, target);
        dev.mcast().send(dev.broadcastAddr().gid(), Encap.ARP, req.encode());
    }

    /**
     * {@code inetdev_send_gratuitous_arp}: a request for each of our addresses from itself, to the broadcast group,
     * so the peers' tables take our new hardware address (a mode switch sets or clears its RC flag), as the kernel
     * does on NETDEV_CHANGEADDR with {@code arp_notify} set.
     */
    void announce() {
        if (dev.ud() == null) {
            return;
        }
        for (IfAddress a : dev.addresses()) {
            if (a.address() instanceof Inet4Address ip) {
                broadcastRequest(ip, ip);
            }
        }
    }

    /** {@code arp_send(ARPOP_REPLY)}: to the requester's address, by its path. */
    private void reply(ArpPacket request) {
        ArpPacket reply = new ArpPacket(ArpPacket.REPLY, dev.hw(), request.targetIp(), request.senderHw(),
                request.senderIp());
        dev.txPath().unicast(request.senderHw(), Encap.ARP, reply.encode());
    }
}
