package org.jrdma.hw.rxe.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test-side readers for the Linux rxe reference captures in {@code vectors/roce} (this module's test resources,
 * found with {@code TestVectors}): classic pcap (Ethernet, IPv4/IPv6, UDP 4791), the tshark field export
 * ({@code NAME.tsv}) and the tshark verbose text ({@code NAME.txt}).
 */
public final class Captures {
    private Captures() {
    }

    /** One captured frame. */
    public static final class Frame {
        public final int number;
        public final byte[] data;

        Frame(int number, byte[] data) {
            this.number = number;
            this.data = data;
        }
    }

    /** Classic pcap (either byte order, micro- or nanosecond), linktype EN10MB only. */
    public static List<Frame> readPcap(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
        int magic = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d) {
            b.order(ByteOrder.LITTLE_ENDIAN);
        } else if (Integer.reverseBytes(magic) == 0xa1b2c3d4 || Integer.reverseBytes(magic) == 0xa1b23c4d) {
            b.order(ByteOrder.BIG_ENDIAN);
        } else {
            throw new IOException(file + ": not a classic pcap (magic " + Integer.toHexString(magic) + ")");
        }
        int linktype = b.getInt(20);
        if (linktype != 1) {
            throw new IOException(file + ": linktype " + linktype + ", need Ethernet (1)");
        }
        List<Frame> frames = new ArrayList<>();
        int off = 24;
        int n = 0;
        while (off + 16 <= b.limit()) {
            int incl = b.getInt(off + 8);
            int orig = b.getInt(off + 12);
            if (incl != orig) {
                throw new IOException(file + ": frame " + (n + 1) + " truncated by the snap length");
            }
            byte[] data = new byte[incl];
            b.position(off + 16);
            b.get(data);
            frames.add(new Frame(++n, data));
            off += 16 + incl;
        }
        return frames;
    }

    /** A UDP datagram to port 4791 inside an Ethernet frame. */
    public static final class RoceFrame {
        public final int number;
        public final byte[] data;
        public final int ipVersion;
        public final int ipOffset;
        public final int udpOffset;
        /** Offset of the BTH (UDP payload). */
        public final int bthOffset;
        /** UDP payload length (from the UDP header). */
        public final int length;
        public final int srcPort;
        public final int dstPort;

        RoceFrame(int number, byte[] data, int ipVersion, int ipOffset, int udpOffset) {
            this.number = number;
            this.data = data;
            this.ipVersion = ipVersion;
            this.ipOffset = ipOffset;
            this.udpOffset = udpOffset;
            this.bthOffset = udpOffset + 8;
            this.length = u16(data, udpOffset + 4) - 8;
            this.srcPort = u16(data, udpOffset);
            this.dstPort = u16(data, udpOffset + 2);
        }

        int ipv4Src() {
            return i32(data, ipOffset + 12);
        }

        int ipv4Dst() {
            return i32(data, ipOffset + 16);
        }

        int ipv4Id() {
            return u16(data, ipOffset + 4);
        }

        int ipv4FlagsFrag() {
            return u16(data, ipOffset + 6);
        }

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

    /** The UDP/4791 datagram in {@code f}, or null (TCP, ICMP, other ports, non-IP). */
    public static RoceFrame roce(Frame f) {
        byte[] d = f.data;
        int off = 12;
        int type = u16(d, off);
        while (type == 0x8100 || type == 0x88a8) { // VLAN tags
            off += 4;
            type = u16(d, off);
        }
        int ip = off + 2;
        int udp;
        int version;
        if (type == 0x0800) {
            if (d.length < ip + 20 || (d[ip + 9] & 0xff) != 17) {
                return null;
            }
            version = 4;
            udp = ip + (d[ip] & 0x0f) * 4;
        } else if (type == 0x86dd) {
            if (d.length < ip + 40 || (d[ip + 6] & 0xff) != 17) {
                return null;
            }
            version = 6;
            udp = ip + 40;
        } else {
            return null;
        }
        if (d.length < udp + 8 || u16(d, udp + 2) != RxeWire.ROCE_V2_UDP_DPORT) {
            return null;
        }
        return new RoceFrame(f.number, d, version, ip, udp);
    }

    /** {@code NAME.tsv}: frame.number to (column to value). Missing file: empty map. */
    static Map<Integer, Map<String, String>> readTsv(Path file) throws IOException {
        Map<Integer, Map<String, String>> rows = new HashMap<>();
        if (!Files.exists(file)) {
            return rows;
        }
        List<String> lines = Files.readAllLines(file);
        String[] header = lines.get(0).split("\t", -1);
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).isEmpty()) {
                continue;
            }
            String[] cols = lines.get(i).split("\t", -1);
            Map<String, String> row = new HashMap<>();
            for (int c = 0; c < header.length && c < cols.length; c++) {
                row.put(header[c], cols[c]);
            }
            rows.put(Integer.parseInt(row.get("frame.number")), row);
        }
        return rows;
    }

    private static final Pattern FRAME = Pattern.compile("^Frame (\\d+): ");

    /**
     * {@code NAME.txt} (tshark -V): frame number to the fields of its top-level "InfiniBand" section, as
     * "Name" to "value" (first occurrence; bit-field lines "..10 .... = Pad Count: 2" give "Pad Count").
     */
    static Map<Integer, Map<String, String>> readTxt(Path file) throws IOException {
        Map<Integer, Map<String, String>> frames = new HashMap<>();
        Map<String, String> cur = null;
        boolean inIb = false;
        for (String line : Files.readAllLines(file)) {
            Matcher m = FRAME.matcher(line);
            if (m.find()) {
                cur = new LinkedHashMap<>();
                frames.put(Integer.parseInt(m.group(1)), cur);
                inIb = false;
                continue;
            }
            if (cur == null || line.isEmpty()) {
                continue;
            }
            if (!line.startsWith(" ")) {
                inIb = line.equals("InfiniBand");
                continue;
            }
            if (!inIb) {
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

    /** The number in the last parentheses of a tshark value: "Reliable Connection (RC) - SEND Only (4)" is 4. */
    static long lastParenNumber(String v) {
        int open = v.lastIndexOf('(');
        int close = v.lastIndexOf(')');
        return Long.parseLong(v.substring(open + 1, close).trim());
    }

    /** Parses "0x..." hex or decimal, unsigned, 64 bits. */
    static long num(String v) {
        String s = v.trim();
        if (s.startsWith("0x") || s.startsWith("0X")) {
            return Long.parseUnsignedLong(s.substring(2), 16);
        }
        return Long.parseUnsignedLong(s);
    }

    static int u16(byte[] d, int off) {
        return ((d[off] & 0xff) << 8) | (d[off + 1] & 0xff);
    }

    static int i32(byte[] d, int off) {
        return ((d[off] & 0xff) << 24) | ((d[off + 1] & 0xff) << 16) | ((d[off + 2] & 0xff) << 8) | (d[off + 3] & 0xff);
    }
}
