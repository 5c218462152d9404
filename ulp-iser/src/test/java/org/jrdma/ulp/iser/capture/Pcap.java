package org.jrdma.ulp.iser.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A capture's IPv4 packets, numbered as tshark does: the frames come from test-support's pcap reader; this keeps
 * the IPv4 view the TCP streams need too (test-support's {@code UdpFrame} covers UDP only).
 */
public final class Pcap {
    private static final int ETHERNET = 14;
    private static final int ETHERTYPE_IPV4 = 0x0800;

    /** One IPv4 packet: its frame number, addresses, IP protocol and the IP payload. */
    public record IpPacket(int frame, String src, String dst, int protocol, byte[] payload) {
    }

    private Pcap() {
    }

    public static List<IpPacket> read(Path file) throws IOException {
        List<IpPacket> packets = new ArrayList<>();
        for (org.jrdma.testsupport.Pcap.Frame f : org.jrdma.testsupport.Pcap.read(file)) {
            IpPacket p = ipv4(f.number, f.data);
            if (p != null) {
                packets.add(p);
            }
        }
        return packets;
    }

    private static IpPacket ipv4(int frame, byte[] f) {
        ByteBuffer b = ByteBuffer.wrap(f);
        if ((b.getShort(12) & 0xffff) != ETHERTYPE_IPV4) {
            return null;
        }
        int ihl = (f[ETHERNET] & 0xf) * 4;
        int total = b.getShort(ETHERNET + 2) & 0xffff;
        return new IpPacket(frame, addr(f, ETHERNET + 12), addr(f, ETHERNET + 16), f[ETHERNET + 9] & 0xff,
                Arrays.copyOfRange(f, ETHERNET + ihl, ETHERNET + total));
    }

    private static String addr(byte[] f, int off) {
        return (f[off] & 0xff) + "." + (f[off + 1] & 0xff) + "." + (f[off + 2] & 0xff) + "." + (f[off + 3] & 0xff);
    }
}
