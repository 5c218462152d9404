package org.jrdma.ulp.ipoib.tun;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.jrdma.ulp.ipoib.IpoibReceiver;

/**
 * One IPoIB interface under the host's IP stack: what the kernel routes into the TUN device goes out on the
 * interface, what the interface receives goes up the TUN device. Bound by name, as a route is: when the interface
 * goes away (its device unplugged, the ipoib client unregistered) the TUN device stays with its carrier off and what
 * the host sends is dropped and counted; when an interface of that name comes back, the bridge binds to it again
 * (its addresses re-added) and the carrier comes on. One thread ({@code ipoib-tun-NAME}) reads the device and watches
 * the binding and the MTU; packets up are written on the interface's thread.
 */
final class TunBridge implements IpoibReceiver {
    private static final System.Logger LOG = System.getLogger("org.jrdma.ulp.ipoib");
    /** How often the reading thread looks at the binding and the MTU, and how soon it notices a detach. */
    private static final int WATCH_MS = 100;
    /** The MTU a TUN device starts with before its interface exists (datagram mode's). */
    private static final int DATAGRAM_MTU = 2044;

    final String ifName;
    final String netns;
    final List<IfAddress> addresses;
    private final TunDevice tun;
    private final HostLink host;
    private final IpoibInterfaces interfaces;
    private final Thread thread;
    private volatile IpoibInterface bound;
    private volatile boolean closing;
    private volatile int hostMtu;
    final LongAdder toIbPackets = new LongAdder();
    final LongAdder toIbBytes = new LongAdder();
    final LongAdder toHostPackets = new LongAdder();
    final LongAdder toHostBytes = new LongAdder();
    /** From the host while no interface is bound. */
    final LongAdder droppedUnbound = new LongAdder();
    /** Writes the kernel refused. */
    final LongAdder droppedWrite = new LongAdder();

    private TunBridge(IpoibInterfaces interfaces, String ifName, TunDevice tun, String netns,
            List<IfAddress> addresses) {
        this.interfaces = interfaces;
        this.ifName = ifName;
        this.tun = tun;
        this.netns = netns;
        this.addresses = List.copyOf(addresses);
        this.host = new HostLink(tun.name(), netns);
        this.thread = new Thread(this::run, "ipoib-tun-" + tun.name());
        thread.setDaemon(true);
    }

    /**
     * Creates the TUN device, configures its host side, binds it to the interface (or, null, to the interface of that
     * name once it comes) and starts forwarding.
     *
     * @throws IOException when the device cannot be made or configured (nothing is left behind)
     */
    static TunBridge attach(IpoibInterfaces interfaces, String ifName, IpoibInterface iface, String tunName,
            String netns, List<IfAddress> addresses) throws IOException {
        TunDevice tun = TunDevice.open(tunName);
        TunBridge b = new TunBridge(interfaces, ifName, tun, netns, addresses);
        try {
            b.hostMtu = iface != null ? iface.mtu() : DATAGRAM_MTU;
            b.host.configure(b.hostMtu, b.addresses.stream().map(IfAddress::toString).toList());
        } catch (IOException | RuntimeException e) {
            tun.close();
            throw e;
        }
        if (iface != null) {
            b.bind(iface);
        } else {
            tun.setCarrier(false);
        }
        b.thread.start();
        return b;
    }

    String tunName() {
        return tun.name();
    }

    IpoibInterface bound() {
        return bound;
    }

    int hostMtu() {
        return hostMtu;
    }

    private void run() {
        long nextWatch = 0;
        try {
            while (!closing) {
                ByteBuffer packet = tun.read(WATCH_MS);
                if (packet != null) {
                    forward(packet);
                }
                long now = System.nanoTime();
                if (now - nextWatch >= 0) {
                    watch();
                    nextWatch = now + TimeUnit.MILLISECONDS.toNanos(WATCH_MS);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, tun.name() + ": " + ifName + " bridge stopped: " + e);
        } finally {
            unbind();
            tun.close();
        }
    }

    private void forward(ByteBuffer packet) {
        IpoibInterface i = bound;
        if (i == null) {
            droppedUnbound.increment();
            return;
        }
        toIbPackets.increment();
        toIbBytes.add(packet.remaining());
        i.send(packet); // copies; what cannot go is counted by the interface
    }

    /** Follows the interface of that name coming and going, and its MTU (a mode switch changes it). */
    private void watch() throws IOException {
        IpoibInterface now = interfaces.get(ifName).orElse(null);
        if (now != bound) {
            unbind();
            if (now != null) {
                bind(now);
                LOG.log(System.Logger.Level.INFO, tun.name() + ": " + ifName + " is back, carrier on");
            } else {
                LOG.log(System.Logger.Level.INFO, tun.name() + ": " + ifName + " is gone, carrier off");
            }
        }
        IpoibInterface i = bound;
        if (i != null && i.mtu() != hostMtu) {
            hostMtu = i.mtu();
            host.setMtu(hostMtu);
        }
    }

    private void bind(IpoibInterface iface) {
        for (IfAddress a : addresses) {
            if (!iface.addresses().contains(a)) {
                iface.addAddress(a.address(), a.prefix());
            }
        }
        iface.setReceiver(this);
        bound = iface;
        tun.setCarrier(true);
    }

    private void unbind() {
        IpoibInterface i = bound;
        bound = null;
        tun.setCarrier(false);
        if (i != null) {
            if (i.receiver() == this) {
                i.setReceiver(null);
            }
            for (IfAddress a : addresses) {
                i.removeAddress(a.address(), a.prefix());
            }
        }
    }

    @Override
    public void receive(IpoibInterface iface, ByteBuffer ipPacket) {
        int len = ipPacket.remaining();
        try {
            tun.write(ipPacket);
            toHostPackets.increment();
            toHostBytes.add(len);
        } catch (IOException e) {
            droppedWrite.increment(); // the device closing, or the kernel refusing a malformed packet
        }
    }

    /** Stops forwarding, gives the interface its receiver back (and takes the addresses off), and removes the TUN device. */
    void close() {
        closing = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
