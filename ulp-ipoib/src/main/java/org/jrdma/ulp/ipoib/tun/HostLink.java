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

    /**
     * Into the namespace, the MTU, the addresses (IPv4 and IPv6: the kernel does no DAD and no ND on a NOARP
     * device, jrdma's IPoIB does the ND), up. The kernel's own IPv6 chatter (router solicitations, MLD reports to
     * groups nobody joined) goes out as multicast and ends as counted {@code tx_no_group} drops.
     */
    void configure(int mtu, List<String> addressesSlashPrefix) throws IOException {
        if (netns != null) {
            run(List.of("ip", "link", "set", "dev", dev, "netns", netns));
        }
        setMtu(mtu);
        for (String a : addressesSlashPrefix) {
            run(ip("addr", "add", a, "dev", dev));
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
