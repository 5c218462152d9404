package org.jrdma.ulp.iser.capture;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The TCP byte stream each sender of a capture sent to {@code port} or from it (one connection per capture),
 * in sequence order, retransmitted bytes dropped.
 */
public final class TcpStreams {
    private static final int TCP = 6;
    private static final int SYN = 0x02;

    private TcpStreams() {
    }

    /** The bytes each source address sent, keyed by that address. */
    public static Map<String, byte[]> read(Path pcap, int port) throws IOException {
        Map<String, ByteArrayOutputStream> streams = new LinkedHashMap<>();
        Map<String, Long> next = new HashMap<>();
        for (Pcap.IpPacket p : Pcap.read(pcap)) {
            ByteBuffer t = ByteBuffer.wrap(p.payload());
            if (p.protocol() != TCP || (t.getShort(0) & 0xffff) != port && (t.getShort(2) & 0xffff) != port) {
                continue;
            }
            long seq = t.getInt(4) & 0xffffffffL;
            int offset = (t.get(12) >> 4 & 0xf) * 4;
            if ((t.get(13) & SYN) != 0) {
                next.put(p.src(), seq + 1);
                streams.put(p.src(), new ByteArrayOutputStream());
                continue;
            }
            int length = p.payload().length - offset;
            Long expected = next.get(p.src());
            if (length == 0 || expected == null) {
                continue;
            }
            long skip = expected - seq;
            if (skip < 0) {
                throw new IOException("frame " + p.frame() + ": a gap in the TCP stream of " + p.src());
            }
            if (skip < length) {
                streams.get(p.src()).write(p.payload(), offset + (int) skip, length - (int) skip);
                next.put(p.src(), seq + length);
            }
        }
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        streams.forEach((src, s) -> bytes.put(src, s.toByteArray()));
        return bytes;
    }
}
