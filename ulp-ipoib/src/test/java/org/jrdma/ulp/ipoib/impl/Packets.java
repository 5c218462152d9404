package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * IP packets for the tests: an ICMP echo request/reply (RFC 792) or UDP datagram with the RFC 791 header; their IPv6
 * twins (RFC 8200 header, RFC 4443 echo, UDP with the pseudo-header checksum of RFC 8200 section 8.1).
 */
final class Packets {
    private Packets() {
    }

    static Inet4Address ip(String s) {
        try {
            return (Inet4Address) InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** An ICMP echo (type 8 request, 0 reply) with {@code data}. */
    static byte[] icmpEcho(String src, String dst, int type, int id, int seq, byte[] data) {
        ByteBuffer icmp = ByteBuffer.allocate(8 + data.length);
        icmp.put((byte) type).put((byte) 0).putShort((short) 0).putShort((short) id).putShort((short) seq).put(data);
        byte[] m = icmp.array();
        int c = checksum(m, 0, m.length);
        m[2] = (byte) (c >>> 8);
        m[3] = (byte) c;
        return ipv4(src, dst, 1, m);
    }

    static byte[] udp(String src, String dst, int sport, int dport, byte[] data) {
        ByteBuffer u = ByteBuffer.allocate(8 + data.length);
        u.putShort((short) sport).putShort((short) dport).putShort((short) (8 + data.length)).putShort((short) 0)
                .put(data);
        return ipv4(src, dst, 17, u.array());
    }

    static byte[] ipv4(String src, String dst, int proto, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(20 + payload.length);
        b.put((byte) 0x45).put((byte) 0).putShort((short) (20 + payload.length)).putShort((short) 0x1234)
                .putShort((short) 0x4000).put((byte) 64).put((byte) proto).putShort((short) 0)
                .put(ip(src).getAddress()).put(ip(dst).getAddress()).put(payload);
        byte[] p = b.array();
        int c = checksum(p, 0, 20);
        p[10] = (byte) (c >>> 8);
        p[11] = (byte) c;
        return p;
    }

    static InetAddress ip6(String s) {
        try {
            return java.net.Inet6Address.getByAddress(null, InetAddress.getByName(s).getAddress(), -1);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static byte[] udp6(String src, String dst, int sport, int dport, byte[] data) {
        ByteBuffer u = ByteBuffer.allocate(8 + data.length);
        u.putShort((short) sport).putShort((short) dport).putShort((short) (8 + data.length)).putShort((short) 0)
                .put(data);
        return ipv6(src, dst, 17, 64, u.array(), 6);
    }

    /** An ICMPv6 echo (type 128 request, 129 reply) with {@code data}. */
    static byte[] icmp6Echo(String src, String dst, int type, int hopLimit, int id, int seq, byte[] data) {
        ByteBuffer m = ByteBuffer.allocate(8 + data.length);
        m.put((byte) type).put((byte) 0).putShort((short) 0).putShort((short) id).putShort((short) seq).put(data);
        return ipv6(src, dst, 58, hopLimit, m.array(), 2);
    }

    /** An IPv6 packet; the upper layer's checksum (at {@code csumAt} in it) over the pseudo-header and itself. */
    static byte[] ipv6(String src, String dst, int next, int hopLimit, byte[] upperIn, int csumAt) {
        byte[] upper = upperIn.clone();
        upper[csumAt] = 0;
        upper[csumAt + 1] = 0;
        ByteBuffer b = ByteBuffer.allocate(40 + upper.length);
        b.putInt(0x60000000).putShort((short) upper.length).put((byte) next).put((byte) hopLimit)
                .put(ip6(src).getAddress()).put(ip6(dst).getAddress()).put(upper);
        byte[] p = b.array();
        ByteBuffer pseudo = ByteBuffer.allocate(40 + upper.length);
        pseudo.put(p, 8, 32).putInt(upper.length).putInt(next).put(upper);
        int c = checksum(pseudo.array(), 0, pseudo.capacity());
        p[40 + csumAt] = (byte) (c >>> 8);
        p[40 + csumAt + 1] = (byte) c;
        return p;
    }

    static int checksum(byte[] b, int off, int len) {
        long sum = 0;
        for (int i = 0; i < len; i += 2) {
            int hi = b[off + i] & 0xff;
            int lo = i + 1 < len ? b[off + i + 1] & 0xff : 0;
            sum += hi << 8 | lo;
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        return (int) ~sum & 0xffff;
    }

    static byte[] data(int len, int seed) {
        byte[] d = new byte[len];
        for (int i = 0; i < len; i++) {
            d[i] = (byte) (seed * 31 + i * 7);
        }
        return d;
    }
}
