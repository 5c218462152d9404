package org.jrdma.ulp.ipoib.tun;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The host side of a TUN device, configured with iproute2 as an operator would (the JVM has no netlink): moved into a
 * network namespace, MTU, address, up. Each step runs {@code ip}; a refusal is an {@link IOException} carrying the
 * command and {@code ip}'s own message.
 */
final class HostLink {
    private static final long TIMEOUT_S = 10;

    private final String dev;
    private final String netns;

    /** {@code netns} null: the device stays in the container's namespace. */
    HostLink(String dev, String netns) {
        this.dev = dev;
        this.netns = netns;
    }

    /** Into the namespace, the MTU, no IPv6 (IPoIB here has no neighbour discovery), the address, up. */
    void configure(int mtu, String addressSlashPrefix) throws IOException {
        if (netns != null) {
            run(List.of("ip", "link", "set", "dev", dev, "netns", netns));
        }
        setMtu(mtu);
        // best effort: without it the kernel's router solicitations are only counted drops
        List<String> sysctl = List.of("sysctl", "-q", "-w", "net.ipv6.conf." + dev + ".disable_ipv6=1");
        try {
            run(inNetns(sysctl));
        } catch (IOException ignored) {
            // no sysctl or no IPv6: nothing to quiet
        }
        if (addressSlashPrefix != null) {
            run(ip("addr", "add", addressSlashPrefix, "dev", dev));
        }
        run(ip("link", "set", "dev", dev, "up"));
    }

    void setMtu(int mtu) throws IOException {
        run(ip("link", "set", "dev", dev, "mtu", Integer.toString(mtu)));
    }

    private List<String> ip(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        if (netns != null) {
            cmd.addAll(List.of("-n", netns));
        }
        cmd.addAll(List.of(args));
        return cmd;
    }

    private List<String> inNetns(List<String> cmd) {
        if (netns == null) {
            return cmd;
        }
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", netns));
        c.addAll(cmd);
        return c;
    }

    private static void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": no answer in " + TIMEOUT_S + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", cmd) + ": interrupted");
        }
        if (p.exitValue() != 0) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            throw new IOException(String.join(" ", cmd) + ": " + (out.isEmpty() ? "status " + p.exitValue() : out));
        }
    }
}
