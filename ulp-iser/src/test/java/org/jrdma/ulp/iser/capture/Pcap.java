package org.jrdma.ulp.iser.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A classic pcap file (tcpdump's, little-endian, Ethernet link type) as IPv4 packets, numbered as tshark does. */
public final class Pcap {
    private static final int MAGIC = 0xa1b2c3d4;
    private static final int FILE_HEADER = 24;
    private static final int RECORD_HEADER = 16;
    private static final int ETHERNET = 14;
    private static final int ETHERTYPE_IPV4 = 0x0800;

    /** One IPv4 packet: its frame number, addresses, IP protocol and the IP payload. */
    public record IpPacket(int frame, String src, String dst, int protocol, byte[] payload) {
    }

    private Pcap() {
    }

    public static List<IpPacket> read(Path file) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        if (in.getInt(0) != MAGIC) {
            throw new IOException(file + ": not a little-endian classic pcap");
        }
        in.position(FILE_HEADER);
        List<IpPacket> packets = new ArrayList<>();
        for (int frame = 1; in.remaining() >= RECORD_HEADER; frame++) {
            in.position(in.position() + 8);
            int captured = in.getInt();
            in.getInt();
            byte[] data = new byte[captured];
            in.get(data);
            IpPacket p = ipv4(frame, data);
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
