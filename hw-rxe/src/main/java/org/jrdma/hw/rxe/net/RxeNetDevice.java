package org.jrdma.hw.rxe.net;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.RxeDevice;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DeviceRegistrar;
import org.jrdma.ib.core.spi.UnregisterReport;

/**
 * One rxe device on a network interface ({@code rxe_net_add}): the GID table from the interface's
 * addresses, the active MTU from its MTU, the node GUID from its MAC, a {@link NettyWire} bound to each
 * address, and the port state following the interface (polled once a second).
 *
 * <p>GID order (as roce_gid_mgmt fills it): IPv6 link-local addresses first (index 0 = the fe80 address,
 * normally the EUI-64 of the MAC), then IPv4 addresses (as IPv4-mapped GIDs), then the other IPv6
 * addresses. On {@code lo} (no link-local address) only 127.0.0.1 is used. With {@code addr} only that
 * address is used (it must belong to the interface, except 127/8 on a loopback interface).
 */
public final class RxeNetDevice {
    private final String netdev;
    private final RxeDevice device;
    private final NettyWire wire;
    private final ScheduledExecutorService monitor;
    private final ScheduledFuture<?> poll;

    private RxeNetDevice(String netdev, RxeDevice device, NettyWire wire, ScheduledExecutorService monitor) {
        this.netdev = netdev;
        this.device = device;
        this.wire = wire;
        this.monitor = monitor;
        this.poll = monitor.scheduleWithFixedDelay(this::pollLink, 1, 1, TimeUnit.SECONDS);
    }

    /** The netdev MTUs an override may name: IPv4's minimum to the loopback device's maximum (Linux lo). */
    static final int MIN_NETDEV_MTU = 68;
    static final int MAX_NETDEV_MTU = 65536;

    /**
     * Creates, binds and registers a device.
     *
     * @param name device name or pattern ({@code rxe%d})
     * @param netdev interface name
     * @param addr empty, or the one address to use
     * @param mtu 0, or an MTU overriding the interface's
     * @throws VerbsException ENODEV (no such interface), EINVAL (bad address), EBUSY (cannot bind)
     */
    public static RxeNetDevice open(DeviceRegistrar registrar, String name, String netdev, String addr, int mtu,
            NettyWire.Transport transport) {
        if (mtu != 0 && (mtu < MIN_NETDEV_MTU || mtu > MAX_NETDEV_MTU)) {
            throw new VerbsException(Errno.EINVAL, "mtu " + mtu + " out of range " + MIN_NETDEV_MTU + ".."
                    + MAX_NETDEV_MTU + " (0: the interface's)");
        }
        NetworkInterface nif;
        try {
            nif = NetworkInterface.getByName(netdev);
        } catch (SocketException e) {
            throw new VerbsException(Errno.ENODEV, "netdev " + netdev + ": " + e.getMessage(), e);
        }
        if (nif == null) {
            throw new VerbsException(Errno.ENODEV, "no netdev " + netdev);
        }
        List<InetAddress> addrs = addresses(nif, addr);
        if (addrs.isEmpty()) {
            throw new VerbsException(Errno.EINVAL, "netdev " + netdev + " has no usable address");
        }
        int netdevMtu;
        long mac;
        boolean up;
        try {
            netdevMtu = mtu > 0 ? mtu : nif.getMTU();
            byte[] hw = nif.getHardwareAddress();
            mac = hw != null && hw.length == 6 && !allZero(hw) ? macOf(hw) : stableMac(netdev, addrs);
            up = nif.isUp();
        } catch (SocketException e) {
            throw new VerbsException(Errno.ENODEV, "netdev " + netdev + ": " + e.getMessage(), e);
        }
        if (netdevMtu < 256 + 80) {
            netdevMtu = 256 + 80;
        }
        NettyWire wire = new NettyWire(transport, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, name.replace("%d", ""));
        RxeDevice dev = new RxeDevice(name, addrs, netdevMtu, mac, wire);
        dev.icrcCheck(RxeNetIcrc.receiveCheck());
        dev.netdev(nif.getName());
        try {
            wire.attach(dev);
        } catch (RuntimeException e) {
            dev.close();
            wire.close();
            throw new VerbsException(Errno.EBUSY, e.getMessage(), e);
        }
        dev.linkState(up);
        try {
            dev.register(registrar);
        } catch (RuntimeException e) {
            dev.close();
            wire.close();
            throw e;
        }
        ScheduledExecutorService mon = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rxe-link-" + netdev);
            t.setDaemon(true);
            return t;
        });
        return new RxeNetDevice(netdev, dev, wire, mon);
    }

    static List<InetAddress> addresses(NetworkInterface nif, String addr) {
        boolean loopback;
        try {
            loopback = nif.isLoopback();
        } catch (SocketException e) {
            loopback = false;
        }
        List<InetAddress> all = Collections.list(nif.getInetAddresses());
        if (addr != null && !addr.isBlank()) {
            InetAddress a;
            try {
                a = InetAddress.getByName(addr.trim());
            } catch (UnknownHostException e) {
                throw new VerbsException(Errno.EINVAL, "bad address " + addr);
            }
            for (InetAddress x : all) {
                if (x.equals(a)) {
                    return List.of(x); // keeps the scope of a link-local address
                }
            }
            if (loopback && a.isLoopbackAddress()) {
                return List.of(a);
            }
            throw new VerbsException(Errno.EINVAL, addr + " is not an address of " + nif.getName());
        }
        if (loopback) {
            for (InetAddress x : all) {
                if (x instanceof Inet4Address) {
                    return List.of(x);
                }
            }
        }
        List<InetAddress> out = new ArrayList<>();
        for (InetAddress x : all) {
            if (x instanceof Inet6Address && x.isLinkLocalAddress()) {
                out.add(x);
            }
        }
        for (InetAddress x : all) {
            if (x instanceof Inet4Address) {
                out.add(x);
            }
        }
        for (InetAddress x : all) {
            if (x instanceof Inet6Address && !x.isLinkLocalAddress()) {
                out.add(x);
            }
        }
        return out;
    }

    private static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    private static long macOf(byte[] hw) {
        long m = 0;
        for (byte x : hw) {
            m = m << 8 | (x & 0xff);
        }
        return m;
    }

    /** A locally administered unicast MAC from the netdev name and the addresses: stable across runs. */
    static long stableMac(String netdev, List<InetAddress> addrs) {
        long h = 0xcbf29ce484222325L; // FNV-1a
        StringBuilder sb = new StringBuilder(netdev);
        for (InetAddress a : addrs) {
            sb.append('/').append(a.getHostAddress());
        }
        for (byte b : sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return 0x02_00_00_00_00_00L | (h & 0xff_ffff_ffffL);
    }

    private void pollLink() {
        try {
            NetworkInterface nif = NetworkInterface.getByName(netdev);
            device.linkState(nif != null && nif.isUp());
        } catch (SocketException | RuntimeException e) {
            // keep the state
        }
    }

    public RxeDevice device() {
        return device;
    }

    public NettyWire wire() {
        return wire;
    }

    public String netdev() {
        return netdev;
    }

    /** The registered device (as clients see it). */
    public IbDevice ibDevice() {
        return device.handle().device();
    }

    /** Unregisters (clients get remove, work flushes), stops the engine, closes the channels and the loop. */
    public UnregisterReport close() {
        poll.cancel(false);
        monitor.shutdownNow();
        // unregister with the wire still attached (Linux keeps the tunnel socket until the device is gone):
        // a client's remove may still exchange packets, e.g. a disconnect; afterwards every QP is destroyed
        // and rcv drops what still arrives
        UnregisterReport r = device.close();
        wire.detach(device);
        wire.close();
        try {
            monitor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return r;
    }
}
