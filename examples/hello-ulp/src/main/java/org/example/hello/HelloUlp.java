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
import org.osgi.service.metatype.annotations.Designate;

/**
 * hello, a ULP: an {@link IbClient} that listens with the RDMA CM on every device it is given ({@code add})
 * and stops listening, closing its connections, when the device goes ({@code remove}). {@link #ping} connects
 * to a device's listener from the device's first port and moves data both ways. In the container DS registers
 * it (the core calls {@code add} for each device, present and future); outside OSGi
 * {@code core.registerClient(new HelloUlp(cm))} does the same.
 */
@Component(service = { IbClient.class, HelloUlp.class }, configurationPid = HelloUlp.PID)
@Designate(ocd = HelloConfig.class)
public final class HelloUlp implements IbClient {
    /** The configuration PID ({@link HelloConfig}). */
    public static final String PID = "org.example.hello";
    /** hello's default port in the RDMA CM's TCP port space. */
    public static final int PORT = 7471;
    private static final System.Logger LOG = System.getLogger("org.example.hello");

    private final RdmaCm cm;
    private final int port;
    private final Map<String, Listening> devices = new ConcurrentHashMap<>();

    private record Listening(IbDevice device, HelloServer server) {
    }

    /** Outside OSGi: the default port. */
    public HelloUlp(RdmaCm cm) {
        this(cm, PORT);
    }

    /** In the container: DS passes the RDMA CM service and the configuration (or its defaults). */
    @Activate
    public HelloUlp(@Reference RdmaCm cm, HelloConfig config) {
        this(cm, config.port());
    }

    private HelloUlp(RdmaCm cm, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("hello: port must be 1..65535, not " + port);
        }
        this.cm = cm;
        this.port = port;
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
     * A listener on {@code addr}, the configured port or the next free one: jrdma's RDMA CM gives a port one
     * holder whatever the address (Linux's cma_check_port lets two specific addresses share it), so the
     * second device's listener takes the next one, and so on. {@link #ping} asks the listener where it is.
     */
    private HelloServer listen(InetAddress addr) {
        for (int p = port; ; p++) {
            try {
                return new HelloServer(cm, this, new InetSocketAddress(addr, p));
            } catch (VerbsException e) {
                if (e.errno() != org.jrdma.ib.core.Errno.EADDRINUSE || p == Math.min(port + 63, 65535)) {
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

    /** Where the device's listener is, or null. */
    public InetSocketAddress listening(String deviceName) {
        Listening l = devices.get(deviceName);
        return l == null ? null : l.server().address();
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
