package org.jrdma.ulp.ipoib.impl;

import org.jrdma.ulp.ipoib.IpoibMode;

/**
 * An interface's mode and MTU as Linux's {@code ipoib_set_mode} and {@code ipoib_change_mtu} keep them: the MTU
 * asked for ({@code admin_mtu}), the broadcast group's ({@code mcast_mtu}, 2044 with a 2048 IB MTU) and the one in
 * effect. Datagram mode: at most the UD MTU, in effect the smaller of asked and group. Connected mode: up to
 * {@code IPOIB_CM_MTU} (65520) as asked. Switching to connected sets 65520; back to datagram clamps to the group's.
 */
final class LinkMtu {
    static final int MIN_MTU = 68;

    private IpoibMode mode = IpoibMode.DATAGRAM;
    private volatile int mcastMtu = IpoibNetdev.ENCAP_MTU_MAX;
    private int adminMtu = IpoibNetdev.ENCAP_MTU_MAX;
    private volatile int mtu = IpoibNetdev.ENCAP_MTU_MAX;

    IpoibMode mode() {
        return mode;
    }

    int mtu() {
        return mtu;
    }

    /** The largest IP packet a datagram (UD) frame carries. */
    int mcastMtu() {
        return mcastMtu;
    }

    /** The broadcast group's MTU less the header ({@code ipoib_mcast_join_finish}); the MTU follows in datagram mode. */
    void groupMtu(int m) {
        mcastMtu = m;
        if (mode == IpoibMode.DATAGRAM) {
            mtu = Math.min(mcastMtu, adminMtu);
        }
    }

    /** {@code ipoib_set_mode}'s MTU: connected takes the connected maximum, datagram clamps to the group's. */
    void setMode(IpoibMode m) {
        int next = m == IpoibMode.CONNECTED ? CmRings.CM_MTU : Math.min(mcastMtu, mtu);
        mode = m;
        set(next);
    }

    /**
     * {@code ip link set NAME mtu N}: {@code dev_set_mtu}'s range check, then {@code ipoib_change_mtu}'s.
     *
     * @throws IllegalArgumentException with iproute2's message
     */
    void set(int n) {
        if (n < MIN_MTU) {
            throw new IllegalArgumentException("Error: mtu less than device minimum.");
        }
        if (n > CmRings.CM_MTU) {
            throw new IllegalArgumentException("Error: mtu greater than device maximum.");
        }
        if (mode == IpoibMode.DATAGRAM && n > IpoibNetdev.ENCAP_MTU_MAX) {
            throw new IllegalArgumentException("RTNETLINK answers: Invalid argument");
        }
        adminMtu = n;
        mtu = mode == IpoibMode.CONNECTED ? n : Math.min(mcastMtu, n);
    }
}
