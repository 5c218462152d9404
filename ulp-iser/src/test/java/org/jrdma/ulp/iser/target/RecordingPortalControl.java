package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jrdma.ulp.iser.conn.IserTransportException;

/** A PortalControl that records its calls ("enable 192.0.2.1:3260") and can refuse an address. */
public final class RecordingPortalControl implements PortalControl {
    public final List<String> calls = new ArrayList<>();
    public final Set<InetSocketAddress> refused = new HashSet<>();
    /** Addresses no RDMA device has (yet): enable refuses them with EADDRNOTAVAIL, enableWhenReady waits. */
    public final Set<InetSocketAddress> noDevice = new HashSet<>();

    @Override
    public synchronized void enable(InetSocketAddress portal) {
        if (refused.contains(portal)) {
            throw new IserTransportException("EADDRINUSE: " + portal);
        }
        if (noDevice.contains(portal)) {
            throw new IserTransportException("rdma_bind_addr: no RDMA device has " + text(portal) + " (EADDRNOTAVAIL)");
        }
        calls.add("enable " + text(portal));
    }

    @Override
    public synchronized void enableWhenReady(InetSocketAddress portal) {
        if (noDevice.contains(portal)) {
            calls.add("enable-when-ready " + text(portal));
            return;
        }
        enable(portal);
    }

    @Override
    public synchronized void disable(InetSocketAddress portal) {
        calls.add("disable " + text(portal));
    }

    public synchronized List<String> drain() {
        List<String> out = List.copyOf(calls);
        calls.clear();
        return out;
    }

    private static String text(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }
}
