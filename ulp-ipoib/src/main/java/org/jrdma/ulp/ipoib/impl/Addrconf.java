package org.jrdma.ulp.ipoib.impl;

import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * What the kernel's {@code addrconf} does for an IPoIB interface: all-nodes joined when it opens, the link-local
 * address from the port GUID on the first link up ({@code addrconf_dev_config}), and the solicited-node group of
 * each IPv6 address joined while an address needs it ({@code addrconf_join_solict} / {@code addrconf_leave_solict}).
 * No DAD, no SLAAC. Runs on the interface's thread.
 */
final class Addrconf {
    static final int LINK_LOCAL_PREFIX = 64;

    private final IpoibNetdev dev;

    Addrconf(IpoibNetdev dev) {
        this.dev = dev;
    }

    /** {@code ipv6_add_dev}: all-nodes, joined once the broadcast group is. */
    void open() {
        join(Ipv6.ALL_NODES);
    }

    /** The first link up: the link-local address, unless one was added by hand. */
    void linkUp() {
        if (!dev.ifAddresses().hasLinkLocal()) {
            Inet6Address ll = Ipv6.linkLocal(dev.gid());
            dev.ifAddresses().add(ll, LINK_LOCAL_PREFIX);
            added(ll);
        }
    }

    /** An IPv6 address was added: its solicited-node group, so NS for it arrive. */
    void added(InetAddress a) {
        join(Ipv6.solicitedNode(a));
    }

    /** An IPv6 address was removed: its group left, unless another address of ours shares it. */
    void removed(InetAddress a) {
        if (!dev.ifAddresses().isLocal(a) && !dev.ifAddresses().sharesSolicitedNode(a)) {
            dev.mcast().leaveGroup(IpoibMgid.ipv6(Ipv6.solicitedNode(a), dev.pkey()));
        }
    }

    private void join(Inet6Address group) {
        dev.mcast().joinGroup(IpoibMgid.ipv6(group, dev.pkey()), group);
    }
}
