package org.jrdma.ulp.ipoib.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.HexFormat;

import org.jrdma.ib.core.Gid;
import org.junit.jupiter.api.Test;

/** The wire codecs against the layouts of RFC 4391 (sections 4, 6, 8, 9.1.1) written out byte by byte. */
class CodecTest {
    static final HexFormat HEX = HexFormat.of();
    static final Gid GID_A = Gid.parse("fe80::6a72:646d:0:101");
    static final Gid GID_B = Gid.parse("fe80::6a72:646d:0:201");

    static Inet4Address ip(String s) throws Exception {
        return (Inet4Address) InetAddress.getByName(s);
    }

    @Test
    void hardwareAddressIsFlagsQpnAndGid() {
        HwAddr a = new HwAddr(HwAddr.FLAGS_RC, 0x000048, GID_A);
        assertEquals("80000048fe800000000000006a72646d00000101", HEX.formatHex(a.bytes()));
        assertEquals(a, HwAddr.decode(a.bytes(), 0));
        assertEquals("80:00:00:48:fe:80:00:00:00:00:00:00:6a:72:64:6d:00:00:01:01", a.toString());
        assertThrows(IllegalArgumentException.class, () -> new HwAddr(0, 0x1000000, GID_A));
    }

    @Test
    void broadcastAddressOfTheDefaultPartitionIsLinuxs() {
        // Linux ipoib_main.c ipv4_bcast_addr with the P_Key 0xffff in bytes 8..9
        assertEquals("00" + "ffffff" + "ff12401bffff000000000000ffffffff",
                HEX.formatHex(HwAddr.broadcast(0xffff).bytes()));
        assertEquals("ff12:401b:ffff::ffff:ffff", IpoibMgid.broadcast(0x7fff).toCompressedString(),
                "the P_Key goes in with the full-member bit");
    }

    @Test
    void ipv4MulticastMapsItsLow28BitsIntoTheMgid() throws Exception {
        assertEquals("ff12401bffff00000000000000010203", HEX.formatHex(IpoibMgid.ipv4(ip("224.1.2.3"), 0xffff).raw()));
        assertEquals("ff12401b800100000000000000000001", HEX.formatHex(IpoibMgid.ipv4(ip("224.0.0.1"), 0x8001).raw()));
        assertEquals("ff12401bffff0000000000000ffffffa",
                HEX.formatHex(IpoibMgid.ipv4(ip("239.255.255.250"), 0xffff).raw()));
        assertThrows(IllegalArgumentException.class, () -> IpoibMgid.ipv4(ip("10.0.0.1"), 0xffff));
    }

    @Test
    void encapsulationHeaderIsEthertypeAndTwoReservedBytes() {
        byte[] b = {9, 9, 9, 9};
        Encap.write(b, 0, Encap.ARP);
        assertArrayEquals(new byte[] {0x08, 0x06, 0, 0}, b);
        assertEquals(Encap.IPV6, Encap.ethertype(new byte[] {(byte) 0x86, (byte) 0xdd, 1, 1}, 0));
    }

    @Test
    void arpRequestHasTheRfcLayout() throws Exception {
        HwAddr sha = new HwAddr(0, 0x48, GID_A);
        byte[] wire = new ArpPacket(ArpPacket.REQUEST, sha, ip("10.0.0.1"), null, ip("10.0.0.2")).encode();
        String golden = "0020" + "0800" + "14" + "04" + "0001"  // htype 32, ptype IPv4, hlen 20, plen 4, request
                + "00000048fe800000000000006a72646d00000101"      // sender hardware address
                + "0a000001"                                      // sender protocol address
                + "0000000000000000000000000000000000000000"      // target hardware address: unknown
                + "0a000002";                                     // target protocol address
        assertEquals(golden, HEX.formatHex(wire));
        assertEquals(56, wire.length);
        ArpPacket back = ArpPacket.decode(wire, 0, wire.length);
        assertEquals(ArpPacket.REQUEST, back.op());
        assertEquals(sha, back.senderHw());
        assertEquals(ip("10.0.0.2"), back.targetIp());
    }

    @Test
    void arpReplyRoundTrips() throws Exception {
        HwAddr sha = new HwAddr(0, 0x49, GID_B);
        HwAddr tha = new HwAddr(0, 0x48, GID_A);
        byte[] wire = new ArpPacket(ArpPacket.REPLY, sha, ip("10.0.0.2"), tha, ip("10.0.0.1")).encode();
        assertEquals("0002", HEX.formatHex(wire, 6, 8));
        assertEquals("00000048fe800000000000006a72646d00000101", HEX.formatHex(wire, 32, 52));
        assertEquals(new ArpPacket(ArpPacket.REPLY, sha, ip("10.0.0.2"), tha, ip("10.0.0.1")),
                ArpPacket.decode(wire, 0, wire.length));
    }

    @Test
    void malformedArpIsRefusedByField() throws Exception {
        byte[] good = new ArpPacket(ArpPacket.REQUEST, new HwAddr(0, 1, GID_A), ip("10.0.0.1"), null,
                ip("10.0.0.2")).encode();
        assertMalformed(good, 55, "ARP packet of 55 bytes");
        byte[] eth = good.clone();
        eth[1] = 1; // Ethernet
        assertMalformed(eth, 56, "hardware type 1");
        byte[] hlen = good.clone();
        hlen[4] = 6;
        assertMalformed(hlen, 56, "hardware length 6");
        byte[] op = good.clone();
        op[7] = 3; // RARP request
        assertMalformed(op, 56, "operation 3");
    }

    static void assertMalformed(byte[] b, int len, String why) {
        ArpPacket.Malformed e = assertThrows(ArpPacket.Malformed.class, () -> ArpPacket.decode(b, 0, len));
        assertEquals(true, e.getMessage().startsWith(why), e.getMessage());
    }

    @Test
    void anEchoRequestIsAnsweredWithItsDataAndFreshChecksums() {
        byte[] req = Packets.icmpEcho("10.0.0.1", "10.0.0.2", 8, 0x77, 5, Packets.data(56, 1));
        assertTrue(IcmpEcho.isRequest(req, req.length));
        byte[] rep = IcmpEcho.reply(req, req.length);
        assertArrayEquals(Packets.icmpEcho("10.0.0.2", "10.0.0.1", 0, 0x77, 5, Packets.data(56, 1)), rep,
                "addresses swapped, type 0, both checksums as RFC 1071 computes them");
        assertEquals(false, IcmpEcho.isRequest(rep, rep.length));
    }

    @Test
    void ipv4LengthChecksAreIpRcvs() {
        byte[] p = new byte[28];
        p[0] = 0x45;
        p[3] = 28;
        assertEquals(28, Ipv4.totalLength(p, 0, 28));
        assertEquals(28, Ipv4.totalLength(p, 0, 28), "padding after the packet is allowed");
        assertEquals(-1, Ipv4.totalLength(p, 0, 27), "total length past the bytes received");
        p[0] = 0x44;
        assertEquals(-1, Ipv4.totalLength(p, 0, 28), "IHL below 5");
        p[0] = 0x65;
        assertEquals(-1, Ipv4.totalLength(p, 0, 28), "not version 4");
    }

    /** RFC 4755's REQ/REP private data ({@code struct ipoib_cm_data}): UD QPN and receive MTU, big-endian. */
    @Test
    void cmPrivateDataIsQpnAndMtuBigEndian() {
        byte[] b = new CmData(0x000123, CmRings.CM_BUF_SIZE).encode();
        org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {0, 0, 1, 0x23, 0, 0, (byte) 0xff, (byte) 0xf4},
                b); // 65524 = IPOIB_CM_BUF_SIZE
        byte[] padded = java.util.Arrays.copyOf(b, 92); // a REP's private data comes zero-padded
        org.junit.jupiter.api.Assertions.assertEquals(new CmData(0x123, 65524), CmData.decode(padded));
        org.junit.jupiter.api.Assertions.assertNull(CmData.decode(new byte[7]));
        org.junit.jupiter.api.Assertions.assertEquals(0x1000000000000123L, IpoibCm.IETF_ID | 0x123);
    }
}
