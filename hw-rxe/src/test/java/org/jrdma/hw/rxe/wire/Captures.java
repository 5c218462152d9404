package org.jrdma.hw.rxe.wire;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.testsupport.Pcap;
import org.jrdma.testsupport.TsharkVerbose;
import org.jrdma.testsupport.UdpFrame;

/**
 * Test-side readers for the Linux rxe reference captures in {@code vectors/roce} (this module's test resources,
 * found with {@code TestVectors}): the RoCEv2 datagrams of a pcap (read with test-support's {@link Pcap} and
 * {@link UdpFrame}), the tshark field export ({@code NAME.tsv}) and the InfiniBand section of the tshark verbose
 * text ({@code NAME.txt}, read with {@link TsharkVerbose}), and the number formats of their values.
 */
public final class Captures {
    private Captures() {
    }

    /** The RoCEv2 datagram (UDP to port 4791) in {@code f}, or null (TCP, ICMP, other ports, non-IP). */
    public static UdpFrame roce(Pcap.Frame f) {
        return UdpFrame.of(f, RxeWire.ROCE_V2_UDP_DPORT);
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

    /**
     * {@code NAME.txt} (tshark -V): frame number to the fields of its top-level "InfiniBand" section, as
     * "Name" to "value" (first occurrence; bit-field lines "..10 .... = Pad Count: 2" give "Pad Count").
     */
    static Map<Integer, Map<String, String>> readTxt(Path file) throws IOException {
        Map<Integer, Map<String, String>> frames = new HashMap<>();
        TsharkVerbose.sections(file, 0, "InfiniBand"::equals).forEach((n, s) -> frames.put(n, s.fields()));
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
}
