package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.Packets.ip6;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.util.HexFormat;

import org.jrdma.ib.core.Gid;
import org.jrdma.ulp.ipoib.IfAddress;
import org.junit.jupiter.api.Test;

/**
 * IPv6 over IPoIB's wire forms against RFC 4391 (section 4's MGID, the link-layer address option), RFC 4861 (NS/NA)
 * and RFC 4291 (solicited-node, link-local) written out byte by byte; the checksums were computed apart from the
 * code (the Internet checksum over the RFC 4443 pseudo-header, by hand in a script).
 */
class NdCodecTest {
    static final HexFormat HEX = HexFormat.of();
    static final HwAddr HW_A = new HwAddr(0, 0x48, CodecTest.GID_A);
    static final HwAddr HW_B = new HwAddr(HwAddr.FLAGS_RC, 0x49, CodecTest.GID_B);
    static final Inet6Address LL_A = (Inet6Address) ip6("fe80::6a72:646d:0:101");
    static final Inet6Address LL_B = (Inet6Address) ip6("fe80::6a72:646d:0:201");

    static final String NS_GOLDEN = "60000000" + "0030" + "3a" + "ff"   // version 6, payload 48, ICMPv6, hop limit 255
            + "fe800000000000006a72646d00000101"                       // source: A's link-local
            + "ff0200000000000000000001ff000201"                       // destination: B's solicited-node group
            + "87" + "00" + "0b1f" + "00000000"                        // NS, code 0, checksum, reserved
            + "fe800000000000006a72646d00000201"                       // target: B
            + "01" + "03" + "0000"                                     // source link-layer address, 3 x 8 bytes, pad
            + "00000048fe800000000000006a72646d00000101";              // A's 20-byte IPoIB address

    static final String NA_GOLDEN = "60000000" + "0030" + "3a" + "ff"
            + "fe800000000000006a72646d00000201"                       // source: B (the target)
            + "fe800000000000006a72646d00000101"                       // destination: A, the soliciting node
            + "88" + "00" + "58c1" + "60000000"                        // NA, code 0, checksum, S|O
            + "fe800000000000006a72646d00000201"                       // target: B
            + "02" + "03" + "0000"                                     // target link-layer address
            + "80000049fe800000000000006a72646d00000201";              // B's address, RC flag set

    @Test
    void neighborSolicitationHasTheRfcLayout() throws Exception {
        byte[] ns = new NdMessage(NdMessage.NS, 0, LL_B, HW_A).encode(LL_A, Ipv6.solicitedNode(LL_B));
        assertEquals(NS_GOLDEN, HEX.formatHex(ns));
        assertEquals(0, InetChecksum.icmpv6(ns, ns.length), "a right checksum sums to zero");
        assertTrue(NdMessage.is(ns, ns.length));
        assertEquals(new NdMessage(NdMessage.NS, 0, LL_B, HW_A), NdMessage.decode(ns, ns.length));
    }

    @Test
    void neighborAdvertisementHasTheRfcLayout() throws Exception {
        int so = NdMessage.NA_SOLICITED | NdMessage.NA_OVERRIDE;
        byte[] na = new NdMessage(NdMessage.NA, so, LL_B, HW_B).encode(LL_B, LL_A);
        assertEquals(NA_GOLDEN, HEX.formatHex(na));
        assertEquals(new NdMessage(NdMessage.NA, so, LL_B, HW_B), NdMessage.decode(na, na.length));
    }

    @Test
    void malformedNdIsRefusedByRfc4861Section71() {
        byte[] ns = HEX.parseHex(NS_GOLDEN);
        assertMalformed(ns, 40 + 20, "ND message of 20 bytes");
        byte[] hop = ns.clone();
        hop[7] = (byte) 254; // forwarded by a router: not from the link
        assertMalformed(hop, ns.length, "hop limit 254");
        byte[] code = ns.clone();
        code[41] = 1;
        assertMalformed(code, ns.length, "code 1");
        byte[] sum = ns.clone();
        sum[43] ^= 1;
        assertMalformed(sum, ns.length, "bad ICMPv6 checksum");
        byte[] zero = withChecksum(ns, 65, 0); // option length 0
        assertMalformed(zero, ns.length, "option of length 0");
        byte[] two = withChecksum(ns, 65, 2); // 16 bytes: an Ethernet-sized option on IPoIB
        assertMalformed(two, ns.length, "link-layer address option of 16 bytes");
        byte[] past = withChecksum(ns, 65, 4);
        assertMalformed(past, ns.length, "option of 32 bytes past");
        byte[] mcastTarget = withChecksum(ns, 48, 0xff);
        assertMalformed(mcastTarget, ns.length, "multicast target");
        byte[] dad = Packets.ipv6("::", "ff02::1:ff00:201", 58, 255, java.util.Arrays.copyOfRange(ns, 40, 88), 2);
        assertMalformed(dad, dad.length, "NS from :: with a source address option");
        byte[] na = HEX.parseHex(NA_GOLDEN);
        byte[] solicitedToAll = Packets.ipv6("fe80::6a72:646d:0:201", "ff02::1", 58, 255,
                java.util.Arrays.copyOfRange(na, 40, 88), 2);
        assertMalformed(solicitedToAll, solicitedToAll.length, "solicited NA to a multicast address");
        byte[] fromGroup = withChecksum(ns, 8, 0xff); // source ff80::...: a group
        assertMalformed(fromGroup, ns.length, "multicast source");
        byte[] groupLl = withChecksum(ns, 69, 0xff); // the option's QPN 0xffffff: a group
        groupLl = withChecksum(groupLl, 70, 0xff);
        groupLl = withChecksum(groupLl, 71, 0xff);
        assertMalformed(groupLl, ns.length, "link-layer address of a group");
    }

    /** {@code p} with byte {@code at} set to {@code v}, the ICMPv6 checksum made right again (by the test's sum). */
    static byte[] withChecksum(byte[] p, int at, int v) {
        byte[] c = p.clone();
        c[at] = (byte) v;
        return Packets.ipv6(Ipv6.source(c).getHostAddress(), Ipv6.destination(c).getHostAddress(), 58, c[7] & 0xff,
                java.util.Arrays.copyOfRange(c, 40, c.length), 2);
    }

    static void assertMalformed(byte[] p, int len, String why) {
        NdMessage.Malformed e = assertThrows(NdMessage.Malformed.class, () -> NdMessage.decode(p, len));
        assertTrue(e.getMessage().startsWith(why), e.getMessage());
    }

    @Test
    void ipv6MulticastMapsItsLow80BitsIntoTheMgidWithTheBroadcastScope() {
        // ipv6_ib_mc_map: ff1S:601b:PKEY then bytes 6..15 of the group; S from the broadcast MGID (2, link-local)
        assertEquals("ff12601bffff00000000000000000001", HEX.formatHex(IpoibMgid.ipv6(ip6("ff02::1"), 0xffff).raw()));
        assertEquals("ff12601bffff000000000001ff000201",
                HEX.formatHex(IpoibMgid.ipv6(ip6("ff02::1:ff00:201"), 0x7fff).raw()), "the full-member bit");
        assertEquals("ff12601b800100030000123456789abc",
                HEX.formatHex(IpoibMgid.ipv6(ip6("ff0e:1:2:3:0:1234:5678:9abc"), 0x8001).raw()),
                "a global-scope group: its scope and first 48 bits are not in the MGID");
        assertEquals(IpoibMgid.ipv6(ip6("ff02::1"), 0xffff), IpoibMgid.of(ip6("ff02::1"), 0xffff));
        assertThrows(IllegalArgumentException.class, () -> IpoibMgid.ipv6(ip6("fe80::1"), 0xffff));
    }

    @Test
    void solicitedNodeAndLinkLocalAddressesAreRfc4291s() {
        assertEquals(ip6("ff02::1:ff45:6789"), Ipv6.solicitedNode(ip6("2001:db8::1:2345:6789")));
        assertEquals(LL_A, Ipv6.linkLocal(CodecTest.GID_A), "U/L bit of 0x6a already set");
        assertEquals(ip6("fe80::200:c903:0:1234"), Ipv6.linkLocal(Gid.parse("fe80::c903:0:1234")),
                "GUID 0000:c903:0000:1234 gets eui[0] |= 2, as addrconf_ifid_infiniband");
    }

    @Test
    void ipv6LengthChecksAreIpv6Rcvs() {
        byte[] p = Packets.udp6("2001:db8::1", "2001:db8::2", 1, 2, new byte[12]);
        assertEquals(60, Ipv6.totalLength(p, 0, 60));
        assertEquals(60, Ipv6.totalLength(p, 0, 64), "padding after the packet is allowed");
        assertEquals(-1, Ipv6.totalLength(p, 0, 59), "payload length past the bytes received");
        assertEquals(-1, Ipv6.totalLength(p, 0, 39), "shorter than the header");
        p[0] = 0x45;
        assertEquals(-1, Ipv6.totalLength(p, 0, 60), "not version 6");
    }

    @Test
    void anIcmpv6EchoIsAnsweredWithItsDataAndAFreshChecksum() {
        byte[] req = Packets.icmp6Echo("2001:db8::1", "2001:db8::2", 128, 64, 7, 3, Packets.data(56, 2));
        assertTrue(IcmpEcho.isRequestV6(req, req.length));
        assertArrayEquals(Packets.icmp6Echo("2001:db8::2", "2001:db8::1", 129, 64, 7, 3, Packets.data(56, 2)),
                IcmpEcho.replyV6(req, req.length));
    }

    @Test
    void addressesParseAndPrintAsIproute2() {
        assertEquals(new IfAddress(ip6("fe80::1"), 64), IfAddress.parse("fe80::1/64"));
        assertEquals(new IfAddress(ip6("2001:db8::1"), 128), IfAddress.parse("2001:db8::1"));
        assertNull(IfAddress.parse("fe80::1%ib0/64"));
        assertNull(IfAddress.parse("2001:db8::1/129"));
        assertNull(IfAddress.parse("::ffff:10.0.0.1/96"), "an IPv4-mapped address is IPv4 to Java: refused");
        assertNull(IfAddress.parse("10.0.0.1/33"));
        assertEquals("2001:db8::1:0:0:1", IfAddress.text(ip6("2001:db8:0:0:1:0:0:1")), "the first longest run");
        assertEquals("2001:0:0:1::1", IfAddress.text(ip6("2001:0:0:1:0:0:0:1")));
        assertEquals("2001:db8:0:1:1:1:1:1", IfAddress.text(ip6("2001:db8:0:1:1:1:1:1")), "one zero word stays");
        assertEquals("::", IfAddress.text(ip6("::")));
        assertEquals("fe80::6a72:646d:0:101/64", new IfAddress(LL_A, 64).toString());
    }
}
