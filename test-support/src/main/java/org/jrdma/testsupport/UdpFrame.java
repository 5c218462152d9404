package org.jrdma.testsupport;

import static org.jrdma.testsupport.Pcap.i32;
import static org.jrdma.testsupport.Pcap.u16;

/**
 * The UDP datagram to one port inside a captured Ethernet frame (VLAN tags skipped, IPv4 or IPv6), as offsets into
 * the frame's bytes: for RoCEv2 (port 4791) the payload starts with the BTH and ends with the ICRC.
 */
public final class UdpFrame {
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int ETHERTYPE_QINQ = 0x88a8;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86dd;
    private static final int IPPROTO_UDP = 17;
    private static final int UDP_HEADER = 8;

    public final int number;
    public final byte[] data;
    public final int ipVersion;
    public final int ipOffset;
    public final int udpOffset;
    /** Offset of the UDP payload (for RoCEv2 the BTH). */
    public final int payloadOffset;
    /** UDP payload length (from the UDP header). */
    public final int length;
    public final int srcPort;
    public final int dstPort;

    private UdpFrame(Pcap.Frame f, int ipVersion, int ipOffset, int udpOffset) {
        this.number = f.number;
        this.data = f.data;
        this.ipVersion = ipVersion;
        this.ipOffset = ipOffset;
        this.udpOffset = udpOffset;
        this.payloadOffset = udpOffset + UDP_HEADER;
        this.length = u16(data, udpOffset + 4) - UDP_HEADER;
        this.srcPort = u16(data, udpOffset);
        this.dstPort = u16(data, udpOffset + 2);
    }

    /** The UDP datagram to {@code dstPort} in {@code f}, or null (TCP, ICMP, other ports, non-IP). */
    public static UdpFrame of(Pcap.Frame f, int dstPort) {
        byte[] d = f.data;
        int off = 12;
        int type = u16(d, off);
        while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ) {
            off += 4;
            type = u16(d, off);
        }
        int ip = off + 2;
        int udp;
        int version;
        if (type == ETHERTYPE_IPV4) {
            if (d.length < ip + 20 || (d[ip + 9] & 0xff) != IPPROTO_UDP) {
                return null;
            }
            version = 4;
            udp = ip + (d[ip] & 0x0f) * 4;
        } else if (type == ETHERTYPE_IPV6) {
            if (d.length < ip + 40 || (d[ip + 6] & 0xff) != IPPROTO_UDP) {
                return null;
            }
            version = 6;
            udp = ip + 40;
        } else {
            return null;
        }
        if (d.length < udp + UDP_HEADER || u16(d, udp + 2) != dstPort) {
            return null;
        }
        return new UdpFrame(f, version, ip, udp);
    }

    public int udpChecksum() {
        return u16(data, udpOffset + 6);
    }

    public int ipv4Src() {
        return i32(data, ipOffset + 12);
    }

    public int ipv4Dst() {
        return i32(data, ipOffset + 16);
    }

    public int ipv4Id() {
        return u16(data, ipOffset + 4);
    }

    public int ipv4FlagsFrag() {
        return u16(data, ipOffset + 6);
    }

    /** The IPv4 DSCP (the TOS byte's upper six bits). */
    public int ipv4Dscp() {
        return (data[ipOffset + 1] & 0xff) >>> 2;
    }

    public int ipv4Ttl() {
        return data[ipOffset + 8] & 0xff;
    }

    /** The source address, dotted (IPv4) or as eight hex groups (IPv6, not compressed). */
    public String ipSrc() {
        return ipString(ipVersion == 4 ? ipOffset + 12 : ipOffset + 8);
    }

    public String ipDst() {
        return ipString(ipVersion == 4 ? ipOffset + 16 : ipOffset + 24);
    }

    private String ipString(int off) {
        if (ipVersion == 4) {
            return (data[off] & 0xff) + "." + (data[off + 1] & 0xff) + "." + (data[off + 2] & 0xff) + "."
                    + (data[off + 3] & 0xff);
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 16; i += 2) {
            sb.append(i == 0 ? "" : ":").append(Integer.toHexString(u16(data, off + i)));
        }
        return sb.toString();
    }
}
