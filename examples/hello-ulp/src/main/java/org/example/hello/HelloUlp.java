package org.example.hello;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.VerbsException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * hello, a ULP: an {@link IbClient} that listens with the RDMA CM on every device it is given ({@code add})
 * and stops listening, closing its connections, when the device goes ({@code remove}). {@link #ping} connects
 * to a device's listener from the device's first port and moves data both ways. In the container DS registers
 * it (the core calls {@code add} for each device, present and future); outside OSGi
 * {@code core.registerClient(new HelloUlp(cm))} does the same.
 */
@Component(service = { IbClient.class, HelloUlp.class })
public final class HelloUlp implements IbClient {
    /** hello's port in the RDMA CM's TCP port space. */
    public static final int PORT = 7471;
    private static final System.Logger LOG = System.getLogger("org.example.hello");

    private final RdmaCm cm;
    private final Map<String, Listening> devices = new ConcurrentHashMap<>();

    private record Listening(IbDevice device, HelloServer server) {
    }

    @Activate
    public HelloUlp(@Reference RdmaCm cm) {
        this.cm = cm;
    }

    @Override
    public String name() {
        return "hello";
    }

    /** Listens on the last port's address (port 2 of a two-port device: the ping goes from port 1 to it). */
    @Override
    public void add(IbDevice device) {
        InetAddress addr = address(device, device.physPortCnt());
        if (addr == null) {
            LOG.log(System.Logger.Level.INFO, "hello: " + device.name() + " has no address to listen on");
            return;
        }
        try {
            HelloServer s = listen(addr);
            device.setClientData(this, s);
            devices.put(device.name(), new Listening(device, s));
        } catch (VerbsException | IllegalStateException | IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "hello: cannot listen on " + device.name() + ": " + e);
        }
    }

    /**
     * A listener on {@code addr}, port {@link #PORT} or the next free one: jrdma's RDMA CM gives a port one
     * holder whatever the address (Linux's cma_check_port lets two specific addresses share it), so the
     * second device's listener takes 7472, and so on. {@link #ping} asks the listener where it is.
     */
    private HelloServer listen(InetAddress addr) {
        for (int port = PORT; ; port++) {
            try {
                return new HelloServer(cm, this, new InetSocketAddress(addr, port));
            } catch (VerbsException e) {
                if (e.errno() != org.jrdma.ib.core.Errno.EADDRINUSE || port == PORT + 63) {
                    throw e;
                }
            }
        }
    }

    @Override
    public void remove(IbDevice device, Object clientData) {
        devices.remove(device.name(), new Listening(device, (HelloServer) clientData));
        if (clientData instanceof HelloServer s) {
            s.close();
        }
    }

    /** The devices hello listens on. */
    public java.util.Set<String> devices() {
        return java.util.Set.copyOf(devices.keySet());
    }

    /**
     * Connects from port 1 of {@code deviceName} to hello's listener on it, SENDs {@code size} bytes and RDMA
     * WRITEs 4 KiB, each echoed back and compared; returns what it did. IOException: which step failed.
     */
    public String ping(String deviceName, int size, long timeoutMs) throws IOException, InterruptedException {
        Listening l = devices.get(deviceName);
        if (l == null) {
            throw new IOException("hello: no device '" + deviceName + "' (hello listens on " + devices.keySet() + ")");
        }
        InetAddress src = address(l.device(), 1);
        return HelloPing.run(cm, this, new InetSocketAddress(src, 0), l.server().address(), size, timeoutMs).toString();
    }

    /** How many requests the device's listener answered, and how many it dropped as malformed. */
    public long[] counters(String deviceName) {
        Listening l = devices.get(deviceName);
        return l == null ? null : new long[] { l.server().answered.get(), l.server().drops.get() };
    }

    /**
     * The address the RDMA CM knows {@code port} by: on InfiniBand its GID[0] written as an IPv6 address (as
     * Linux AF_IB), on RoCE the first IPv4 GID (the netdev's address); null if there is none.
     */
    static InetAddress address(IbDevice device, int port) {
        if (device.linkLayer(port) == LinkLayer.INFINIBAND) {
            return device.queryGid(port, 0).toInetAddress();
        }
        int n = device.queryPort(port).gidTblLen();
        for (int i = 0; i < n; i++) {
            Gid g = device.queryGid(port, i);
            if (g.isV4Mapped()) {
                return g.toInetAddress();
            }
        }
        return null;
    }
}
