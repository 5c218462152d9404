package org.jrdma.ulp.ipoib.shell;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;

import org.jrdma.ulp.ipoib.impl.InetChecksum;

/**
 * An ICMP echo request in an IPv4 packet (RFC 792, RFC 791), or an ICMPv6 one in an IPv6 packet (RFC 4443, hop limit
 * 64), as ping sends it: data bytes 0, 1, 2, ...
 */
final class EchoRequest {
    private EchoRequest() {
    }

    static byte[] build(InetAddress src, InetAddress dst, int id, int seq, int size) {
        if (dst instanceof Inet6Address) {
            ByteBuffer b = ByteBuffer.allocate(40 + 8 + size);
            b.putInt(0x60000000).putShort((short) (8 + size)).put((byte) 58).put((byte) 64).put(src.getAddress())
                    .put(dst.getAddress());
            b.put((byte) 128).put((byte) 0).putShort((short) 0).putShort((short) id).putShort((short) seq);
            for (int i = 0; i < size; i++) {
                b.put((byte) i);
            }
            byte[] p = b.array();
            InetChecksum.putIcmpv6(p, p.length);
            return p;
        }
        ByteBuffer b = ByteBuffer.allocate(20 + 8 + size);
        b.put((byte) 0x45).put((byte) 0).putShort((short) (28 + size)).putShort((short) seq).putShort((short) 0x4000)
                .put((byte) 64).put((byte) 1).putShort((short) 0).put(src.getAddress()).put(dst.getAddress());
        b.put((byte) 8).put((byte) 0).putShort((short) 0).putShort((short) id).putShort((short) seq);
        for (int i = 0; i < size; i++) {
            b.put((byte) i);
        }
        byte[] p = b.array();
        InetChecksum.put(p, 20, 8 + size, 22);
        InetChecksum.put(p, 0, 20, 10);
        return p;
    }
}
