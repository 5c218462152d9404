package org.jrdma.hw.rxe.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Datagrams the kernel dropped at a wire's sockets before they were read (receive buffer full, or no memory): the
 * {@code drops} column of {@code /proc/net/udp} and {@code /proc/net/udp6} for the bound addresses (Linux; the
 * host-wide UDP RcvbufErrors counts every socket). RoCE sees such a drop as a PSN gap: a sequence NAK, or the
 * retransmit timer if nothing follows it.
 */
final class UdpDrops {
    private UdpDrops() {
    }

    /** The drops of the sockets bound to {@code addrs} on {@code port}; -1 if unreadable. */
    static long of(Iterable<InetAddress> addrs, int port) {
        // each table read once, however many of the wire's addresses it holds
        Map<String, Set<String>> keys = new HashMap<>();
        for (InetAddress a : addrs) {
            keys.computeIfAbsent(a instanceof Inet6Address ? "/proc/net/udp6" : "/proc/net/udp",
                    f -> new HashSet<>()).add(procAddress(a) + ":" + String.format("%04X", port));
        }
        long sum = 0;
        for (Map.Entry<String, Set<String>> e : keys.entrySet()) {
            try {
                for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(e.getKey()))) {
                    String[] c = line.trim().split("\\s+");
                    if (c.length > 12 && e.getValue().contains(c[1])) {
                        sum += Long.parseLong(c[12]);
                    }
                }
            } catch (java.io.IOException | RuntimeException x) {
                return -1;
            }
        }
        return sum;
    }

    /** An address as /proc/net/udp{,6} prints it: 32-bit words in host byte order, in hex. */
    static String procAddress(InetAddress a) {
        byte[] b = a.getAddress();
        boolean le = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;
        StringBuilder s = new StringBuilder();
        for (int w = 0; w < b.length; w += 4) {
            for (int i = 0; i < 4; i++) {
                s.append(String.format("%02X", b[w + (le ? 3 - i : i)] & 0xff));
            }
        }
        return s.toString();
    }
}
