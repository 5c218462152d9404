package org.jrdma.ulp.iser.target;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * {@code tpg1/portals/IP:PORT} (LIO's {@code np/IP:PORT}): an address the TPG is reachable at. With
 * {@code enable_iser true} the runtime listens on it through the RDMA CM; without, it is a TCP-only portal in
 * LIO and nothing here (jrdma has no iSCSI/TCP transport), shown as {@code [OK]} as targetcli does.
 * {@code iser} is guarded by the {@link TargetTree}'s lock.
 */
public final class NetworkPortal {
    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    private final String ip;
    private final InetSocketAddress address;
    private boolean iser;

    NetworkPortal(String ip, int port) throws TargetConfigException {
        this.address = new InetSocketAddress(literal(ip), port);
        this.ip = ip;
    }

    /** The address as written in the portal's name: {@code 192.0.2.1} or {@code [::1]}. */
    public String ip() {
        return ip;
    }

    public int port() {
        return address.getPort();
    }

    /** {@code 192.0.2.1:3260}, the node name in targetcli. */
    public String name() {
        return ip + ":" + port();
    }

    public InetSocketAddress address() {
        return address;
    }

    public boolean iser() {
        return iser;
    }

    void iser(boolean on) {
        iser = on;
    }

    /** 0.0.0.0 or :: (INADDR_ANY): matches every local address of its port. */
    public boolean wildcard() {
        return address.getAddress().isAnyLocalAddress();
    }

    /** Whether a connection that came in on {@code local} came through this portal. */
    boolean matches(InetSocketAddress local) {
        return local.getPort() == port() && (wildcard() || address.getAddress().equals(local.getAddress()));
    }

    /** IP literals only (never a DNS lookup); rtslib's canonical form puts IPv6 in brackets. */
    static InetAddress literal(String ip) throws TargetConfigException {
        String bare = ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
        if (!IPV4.matcher(bare).matches() && !IPV6.matcher(bare).matches()) {
            throw new TargetConfigException("Could not create NetworkPortal in configFS: invalid address " + ip);
        }
        try {
            return InetAddress.getByName(bare);
        } catch (UnknownHostException e) {
            throw new TargetConfigException("Could not create NetworkPortal in configFS: invalid address " + ip);
        }
    }
}
