package org.jrdma.ulp.ipoib.shell;

import java.net.Inet4Address;
import java.nio.ByteBuffer;

import org.jrdma.ulp.ipoib.impl.IcmpEcho;

/** An ICMP echo request in an IPv4 packet (RFC 792, RFC 791), as ping sends it: data bytes 0, 1, 2, ... */
final class EchoRequest {
    private EchoRequest() {
    }

    static byte[] build(Inet4Address src, Inet4Address dst, int id, int seq, int size) {
        ByteBuffer b = ByteBuffer.allocate(20 + 8 + size);
        b.put((byte) 0x45).put((byte) 0).putShort((short) (28 + size)).putShort((short) seq).putShort((short) 0x4000)
                .put((byte) 64).put((byte) 1).putShort((short) 0).put(src.getAddress()).put(dst.getAddress());
        b.put((byte) 8).put((byte) 0).putShort((short) 0).putShort((short) id).putShort((short) seq);
        for (int i = 0; i < size; i++) {
            b.put((byte) i);
        }
        byte[] p = b.array();
        IcmpEcho.putChecksum(p, 20, 8 + size, 22);
        IcmpEcho.putChecksum(p, 0, 20, 10);
        return p;
    }
}
