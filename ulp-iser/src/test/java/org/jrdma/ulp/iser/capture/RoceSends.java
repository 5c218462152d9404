package org.jrdma.ulp.iser.capture;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The RC SEND messages of a RoCE v2 capture (UDP 4791): BTH (12 bytes), IETH or ImmDt when the opcode has one,
 * payload, BTH pad, ICRC (4 bytes). SEND First/Middle/Last are joined per sender; a message is numbered by its
 * first packet, the frame tshark shows the iSER and iSCSI fields on. Retransmitted PSNs are dropped.
 */
public final class RoceSends {
    private static final int ROCE_PORT = 4791;
    private static final int UDP = 17;
    private static final int UDP_HEADER = 8;
    private static final int BTH = 12;
    private static final int ICRC = 4;
    private static final int SEND_FIRST = 0;
    private static final int SEND_MIDDLE = 1;
    private static final int SEND_LAST = 2;
    private static final int SEND_LAST_IMM = 3;
    private static final int SEND_ONLY = 4;
    private static final int SEND_ONLY_IMM = 5;
    private static final int SEND_LAST_INV = 22;
    private static final int SEND_ONLY_INV = 23;

    /** One SEND message: the frame of its first packet, its sender, its BTH opcode(s) and its payload. */
    public record Send(int frame, String src, int lastOpcode, byte[] payload) {
    }

    private RoceSends() {
    }

    public static List<Send> read(Path pcap) throws IOException {
        List<Send> sends = new ArrayList<>();
        Map<String, Integer> firstFrame = new HashMap<>();
        Map<String, ByteArrayOutputStream> partial = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (Pcap.IpPacket p : Pcap.read(pcap)) {
            byte[] u = p.payload();
            if (p.protocol() != UDP || (ByteBuffer.wrap(u).getShort(2) & 0xffff) != ROCE_PORT) {
                continue;
            }
            int bth = UDP_HEADER;
            int opcode = u[bth] & 0xff;
            int pad = u[bth + 1] >> 4 & 3;
            int psn = ByteBuffer.wrap(u).getInt(bth + 8) & 0xffffff;
            if (!isSend(opcode) || !seen.add(p.src() + "/" + psn)) {
                continue;
            }
            int start = bth + BTH + extension(opcode);
            byte[] payload = java.util.Arrays.copyOfRange(u, start, u.length - pad - ICRC);
            if (opcode == SEND_FIRST || opcode == SEND_ONLY || opcode == SEND_ONLY_IMM || opcode == SEND_ONLY_INV) {
                firstFrame.put(p.src(), p.frame());
                partial.put(p.src(), new ByteArrayOutputStream());
            }
            ByteArrayOutputStream message = partial.get(p.src());
            if (message == null) {
                throw new IOException("frame " + p.frame() + ": SEND continuation without a first packet");
            }
            message.writeBytes(payload);
            if (opcode != SEND_FIRST && opcode != SEND_MIDDLE) {
                sends.add(new Send(firstFrame.get(p.src()), p.src(), opcode, message.toByteArray()));
                partial.remove(p.src());
            }
        }
        return sends;
    }

    private static boolean isSend(int opcode) {
        return opcode <= SEND_ONLY_IMM || opcode == SEND_LAST_INV || opcode == SEND_ONLY_INV;
    }

    /** IETH or ImmDt: 4 bytes after the BTH. */
    private static int extension(int opcode) {
        boolean ext = opcode == SEND_LAST_IMM || opcode == SEND_ONLY_IMM || opcode == SEND_LAST_INV
                || opcode == SEND_ONLY_INV;
        return ext ? 4 : 0;
    }
}
