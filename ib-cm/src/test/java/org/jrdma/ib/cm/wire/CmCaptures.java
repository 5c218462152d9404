package org.jrdma.ib.cm.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jrdma.ib.mad.Mad;
import org.jrdma.testsupport.TestVectors;

/**
 * Reads the CM MADs out of the Linux rxe reference captures in {@code vectors/roce} (classic pcap,
 * Ethernet / IPv4 / UDP 4791 / BTH / DETH / MAD / ICRC) and the CM sections of their tshark -V text. A minimal
 * copy of what hw-rxe's test-side {@code Captures} does, which ib-cm cannot reach (hw-rxe test classes are not
 * published).
 */
final class CmCaptures {
    static final int ROCE_PORT = 4791;
    static final int BTH = 12;
    static final int DETH = 8;
    static final int ICRC = 4;
    static final int OPCODE_UD_SEND_ONLY = 100;

    private CmCaptures() {
    }

    /** A MAD on QP1 in a RoCEv2 UD SEND Only packet, with the packet fields around it. */
    static final class CmPacket {
        final int frame;
        final byte[] ip;   // the IPv4 header
        final int udpSrcPort;
        final int udpDstPort;
        final int udpChecksum;
        final byte[] bth;
        final byte[] deth;
        final Mad mad;
        final byte[] icrc;

        CmPacket(int frame, byte[] ip, int udpSrcPort, int udpDstPort, int udpChecksum, byte[] bth, byte[] deth,
                 byte[] mad, byte[] icrc) {
            this.frame = frame;
            this.ip = ip;
            this.udpSrcPort = udpSrcPort;
            this.udpDstPort = udpDstPort;
            this.udpChecksum = udpChecksum;
            this.bth = bth;
            this.deth = deth;
            this.mad = new Mad(mad);
            this.icrc = icrc;
        }

        String ipSrc() { return dotted(12); }
        String ipDst() { return dotted(16); }
        int dscp() { return (ip[1] & 0xff) >>> 2; }
        int ttl() { return ip[8] & 0xff; }
        int ipFlagsFrag() { return u16(ip, 6); }
        int opcode() { return bth[0] & 0xff; }
        int bthPkey() { return u16(bth, 2); }
        int bthDestQp() { return (int) (u32(bth, 4) & 0xffffff); }
        boolean bthAckReq() { return (bth[8] & 0x80) != 0; }
        int bthPsn() { return (int) (u32(bth, 8) & 0xffffff); }
        long dethQkey() { return u32(deth, 0); }
        int dethSrcQp() { return (int) (u32(deth, 4) & 0xffffff); }

        private String dotted(int off) {
            return (ip[off] & 0xff) + "." + (ip[off + 1] & 0xff) + "." + (ip[off + 2] & 0xff) + "." + (ip[off + 3] & 0xff);
        }

        @Override
        public String toString() {
            return "frame " + frame + " " + CmAttr.name(mad.attrId());
        }
    }

    /** Every UD SEND Only to QP1 carrying a CM MAD, in capture order. */
    static List<CmPacket> cmPackets(String name) throws IOException {
        List<CmPacket> out = new ArrayList<>();
        for (Map.Entry<Integer, byte[]> f : readPcap(TestVectors.path("roce/" + name + ".pcap")).entrySet()) {
            byte[] d = f.getValue();
            if (d.length < 14 + 20 || u16(d, 12) != 0x0800 || (d[14 + 9] & 0xff) != 17) {
                continue;
            }
            int ip = 14;
            int udp = ip + (d[ip] & 0x0f) * 4;
            if (u16(d, udp + 2) != ROCE_PORT) {
                continue;
            }
            int bth = udp + 8;
            int udpEnd = udp + u16(d, udp + 4);
            if ((d[bth] & 0xff) != OPCODE_UD_SEND_ONLY || udpEnd - bth != BTH + DETH + Mad.SIZE + ICRC) {
                continue;
            }
            int mad = bth + BTH + DETH;
            if ((d[mad + 1] & 0xff) != Mad.CLASS_CM) {
                continue;
            }
            out.add(new CmPacket(f.getKey(), Arrays.copyOfRange(d, ip, udp), u16(d, udp), u16(d, udp + 2),
                    u16(d, udp + 6), Arrays.copyOfRange(d, bth, bth + BTH), Arrays.copyOfRange(d, bth + BTH, mad),
                    Arrays.copyOfRange(d, mad, mad + Mad.SIZE), Arrays.copyOfRange(d, udpEnd - ICRC, udpEnd)));
        }
        return out;
    }

    /** Classic pcap (either byte order), Ethernet: frame number (from 1) to bytes. */
    static Map<Integer, byte[]> readPcap(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        int magic = b.getInt(0);
        if (Integer.reverseBytes(magic) == 0xa1b2c3d4 || Integer.reverseBytes(magic) == 0xa1b23c4d) {
            b.order(ByteOrder.BIG_ENDIAN);
        } else if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
            throw new IOException(file + ": not a classic pcap");
        }
        if (b.getInt(20) != 1) {
            throw new IOException(file + ": not Ethernet");
        }
        Map<Integer, byte[]> frames = new LinkedHashMap<>();
        int n = 0;
        for (int off = 24; off + 16 <= b.limit(); ) {
            int incl = b.getInt(off + 8);
            byte[] data = new byte[incl];
            b.position(off + 16);
            b.get(data);
            frames.put(++n, data);
            off += 16 + incl;
        }
        return frames;
    }

    private static final Pattern FRAME = Pattern.compile("^Frame (\\d+): ");

    /**
     * The CM section ("    CM ConnectRequest", ...) of each frame of {@code NAME.txt} as "Name" to "value", first
     * occurrence; bit-field lines ("1010 0... = Remote CM Response Timeout: 0x14") give the name after " = ".
     */
    static Map<Integer, Map<String, String>> cmFields(String name) throws IOException {
        Map<Integer, Map<String, String>> frames = new HashMap<>();
        Map<String, String> cur = null;
        boolean inCm = false;
        for (String line : Files.readAllLines(TestVectors.path("roce/" + name + ".txt"))) {
            Matcher m = FRAME.matcher(line);
            if (m.find()) {
                cur = new LinkedHashMap<>();
                frames.put(Integer.parseInt(m.group(1)), cur);
                inCm = false;
                continue;
            }
            if (cur == null || line.isEmpty()) {
                continue;
            }
            if (line.startsWith("    ") && !line.startsWith("     ")) {
                inCm = line.startsWith("    CM ");
                if (inCm) {
                    cur.put("message", line.trim());
                }
                continue;
            }
            if (!inCm) {
                continue;
            }
            String s = line.trim();
            int eq = s.indexOf(" = ");
            if (eq >= 0) {
                s = s.substring(eq + 3);
            }
            int colon = s.indexOf(": ");
            if (colon > 0) {
                cur.putIfAbsent(s.substring(0, colon), s.substring(colon + 2));
            }
        }
        return frames;
    }

    static int u16(byte[] d, int off) {
        return (d[off] & 0xff) << 8 | d[off + 1] & 0xff;
    }

    static long u32(byte[] d, int off) {
        return ((long) u16(d, off) << 16 | u16(d, off + 2)) & 0xffffffffL;
    }
}
