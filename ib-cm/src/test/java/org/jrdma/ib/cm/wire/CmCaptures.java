package org.jrdma.ib.cm.wire;

import static org.jrdma.testsupport.Pcap.i32;
import static org.jrdma.testsupport.Pcap.u16;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.hw.rxe.wire.RxeWire;
import org.jrdma.ib.mad.Mad;
import org.jrdma.testsupport.Pcap;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.testsupport.TsharkVerbose;
import org.jrdma.testsupport.UdpFrame;

/**
 * Reads the CM MADs out of the Linux rxe reference captures in {@code vectors/roce} (classic pcap,
 * Ethernet / IPv4 / UDP 4791 / BTH / DETH / MAD / ICRC, read with test-support's {@link Pcap} and
 * {@link UdpFrame}) and the CM sections of their tshark -V text (with {@link TsharkVerbose}).
 */
final class CmCaptures {
    static final int BTH = 12;
    static final int DETH = 8;
    static final int ICRC = 4;
    static final int OPCODE_UD_SEND_ONLY = 100;

    private CmCaptures() {
    }

    /** A MAD on QP1 in a RoCEv2 UD SEND Only packet over IPv4, with the packet fields around it. */
    static final class CmPacket {
        final int frame;
        final UdpFrame udp;
        final int udpSrcPort;
        final int udpDstPort;
        final int udpChecksum;
        final byte[] bth;
        final byte[] deth;
        final Mad mad;
        final byte[] icrc;

        CmPacket(UdpFrame udp, byte[] bth, byte[] deth, byte[] mad, byte[] icrc) {
            this.frame = udp.number;
            this.udp = udp;
            this.udpSrcPort = udp.srcPort;
            this.udpDstPort = udp.dstPort;
            this.udpChecksum = udp.udpChecksum();
            this.bth = bth;
            this.deth = deth;
            this.mad = new Mad(mad);
            this.icrc = icrc;
        }

        int dscp() { return udp.ipv4Dscp(); }
        int ttl() { return udp.ipv4Ttl(); }
        int ipFlagsFrag() { return udp.ipv4FlagsFrag(); }
        int opcode() { return bth[0] & 0xff; }
        int bthPkey() { return u16(bth, 2); }
        int bthDestQp() { return i32(bth, 4) & 0xffffff; }
        boolean bthAckReq() { return (bth[8] & 0x80) != 0; }
        int bthPsn() { return i32(bth, 8) & 0xffffff; }
        long dethQkey() { return Integer.toUnsignedLong(i32(deth, 0)); }
        int dethSrcQp() { return i32(deth, 4) & 0xffffff; }

        @Override
        public String toString() {
            return "frame " + frame + " " + CmAttr.name(mad.attrId());
        }
    }

    /** Every UD SEND Only to QP1 carrying a CM MAD (over IPv4), in capture order. */
    static List<CmPacket> cmPackets(String name) throws IOException {
        List<CmPacket> out = new ArrayList<>();
        for (Pcap.Frame f : Pcap.read(TestVectors.path("roce/" + name + ".pcap"))) {
            UdpFrame r = UdpFrame.of(f, RxeWire.ROCE_V2_UDP_DPORT);
            if (r == null || r.ipVersion != 4) {
                continue;
            }
            byte[] d = r.data;
            int bth = r.payloadOffset;
            int udpEnd = bth + r.length;
            if ((d[bth] & 0xff) != OPCODE_UD_SEND_ONLY || udpEnd - bth != BTH + DETH + Mad.SIZE + ICRC) {
                continue;
            }
            int mad = bth + BTH + DETH;
            if ((d[mad + 1] & 0xff) != Mad.CLASS_CM) {
                continue;
            }
            out.add(new CmPacket(r, Arrays.copyOfRange(d, bth, bth + BTH), Arrays.copyOfRange(d, bth + BTH, mad),
                    Arrays.copyOfRange(d, mad, mad + Mad.SIZE), Arrays.copyOfRange(d, udpEnd - ICRC, udpEnd)));
        }
        return out;
    }

    /**
     * The CM section ("    CM ConnectRequest", ...) of each frame of {@code NAME.txt} as "Name" to "value", first
     * occurrence, and the section's heading as "message"; bit-field lines ("1010 0... = Remote CM Response
     * Timeout: 0x14") give the name after " = ".
     */
    static Map<Integer, Map<String, String>> cmFields(String name) throws IOException {
        Map<Integer, Map<String, String>> frames = new HashMap<>();
        TsharkVerbose.sections(TestVectors.path("roce/" + name + ".txt"), 4, h -> h.startsWith("    CM "))
                .forEach((n, s) -> {
                    Map<String, String> m = new LinkedHashMap<>();
                    if (s.title() != null) {
                        m.put("message", s.title());
                    }
                    s.fields().forEach(m::putIfAbsent);
                    frames.put(n, m);
                });
        return frames;
    }
}
