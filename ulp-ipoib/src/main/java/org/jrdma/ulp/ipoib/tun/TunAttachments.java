package org.jrdma.ulp.ipoib.tun;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The TUN devices attached to IPoIB interfaces ({@code ipoib attach} / {@code ipoib detach}). At most one per
 * interface and one per TUN name. Deactivation (the bundle stopping, the ipoib client going) detaches them all, so
 * the TUN devices leave the host with the container.
 */
@Component(service = TunAttachments.class)
public class TunAttachments {
    @Reference
    IpoibInterfaces interfaces;

    private final List<TunBridge> bridges = new ArrayList<>();

    /** For DS. */
    public TunAttachments() {
    }

    /** Outside OSGi (tests, an embedding application). */
    public TunAttachments(IpoibInterfaces interfaces) {
        this.interfaces = interfaces;
    }

    /** Detaches everything. */
    public void close() {
        deactivate();
    }

    /** One attachment as {@code ipoib show} prints it. */
    public record Attachment(String ifName, String tunName, String netns, List<IfAddress> addresses, int mtu,
            boolean carrier,
            long toIbPackets, long toIbBytes, long toHostPackets, long toHostBytes, long droppedUnbound,
            long droppedWrite) {
    }

    /**
     * {@code ipoib attach IFACE tun NAME [netns NS] [addr A/PREFIX]...} (IPv4 and IPv6 addresses, on both sides).
     *
     * @throws IllegalArgumentException for an unknown interface or one already attached
     * @throws IOException when the TUN device cannot be made or configured
     */
    public Attachment attach(String ifName, String tunName, String netns, List<IfAddress> addresses)
            throws IOException {
        IpoibInterface iface = interfaces.get(ifName)
                .orElseThrow(() -> new IllegalArgumentException("Cannot find device \"" + ifName + "\""));
        return attach(ifName, iface, tunName, netns, addresses);
    }

    /**
     * As {@link #attach(String, String, String, List)}, for a configuration: the interface need not exist yet
     * (the TUN device waits for it with its carrier off).
     */
    Attachment attachWhenReady(String ifName, String tunName, String netns, List<IfAddress> addresses)
            throws IOException {
        return attach(ifName, interfaces.get(ifName).orElse(null), tunName, netns, addresses);
    }

    private Attachment attach(String ifName, IpoibInterface iface, String tunName, String netns,
            List<IfAddress> addresses) throws IOException {
        synchronized (bridges) {
            for (TunBridge b : bridges) {
                if (b.ifName.equals(ifName) || b.tunName().equals(tunName)) {
                    throw new IllegalArgumentException(ifName + " is already attached to " + b.tunName());
                }
            }
            TunBridge b = TunBridge.attach(interfaces, ifName, iface, tunName, netns, addresses);
            bridges.add(b);
            return view(b);
        }
    }

    /** {@code ipoib detach NAME} (the interface or the TUN device); false if neither is attached. */
    public boolean detach(String name) {
        TunBridge found = null;
        synchronized (bridges) {
            for (TunBridge b : bridges) {
                if (b.ifName.equals(name) || b.tunName().equals(name)) {
                    found = b;
                }
            }
            bridges.remove(found);
        }
        if (found == null) {
            return false;
        }
        found.close();
        return true;
    }

    /** {@code A.B.C.D/PREFIX} or {@code X:X::X/PREFIX}, the prefix required here (unlike {@code ip addr}); else null. */
    public static IfAddress parseAddress(String v) {
        return v.indexOf('/') < 0 ? null : IfAddress.parse(v);
    }

    public List<Attachment> list() {
        synchronized (bridges) {
            return bridges.stream().map(TunAttachments::view).toList();
        }
    }

    private static Attachment view(TunBridge b) {
        return new Attachment(b.ifName, b.tunName(), b.netns, b.addresses, b.hostMtu(), b.bound() != null,
                b.toIbPackets.sum(), b.toIbBytes.sum(), b.toHostPackets.sum(), b.toHostBytes.sum(),
                b.droppedUnbound.sum(), b.droppedWrite.sum());
    }

    @Deactivate
    void deactivate() {
        List<TunBridge> all;
        synchronized (bridges) {
            all = new ArrayList<>(bridges);
            bridges.clear();
        }
        all.forEach(TunBridge::close);
    }
}
