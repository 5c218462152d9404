package org.jrdma.testsupport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a classic pcap file (the format of the Linux reference captures under {@code vectors/roce}): its frames,
 * numbered from 1 as Wireshark numbers them. {@link UdpFrame} finds the UDP datagram inside one.
 */
public final class Pcap {
    private static final int MAGIC_USEC = 0xa1b2c3d4;
    private static final int MAGIC_NSEC = 0xa1b23c4d;
    private static final int LINKTYPE_ETHERNET = 1;
    private static final int FILE_HEADER = 24;
    private static final int RECORD_HEADER = 16;

    private Pcap() {
    }

    /** One captured frame: its number (from 1) and its bytes from the Ethernet header on. */
    public static final class Frame {
        public final int number;
        public final byte[] data;

        Frame(int number, byte[] data) {
            this.number = number;
            this.data = data;
        }
    }

    /**
     * Every frame of {@code file}: classic pcap, either byte order, micro- or nanosecond, linktype EN10MB only.
     *
     * @throws IOException if it is not such a file, or a frame was cut by the snap length (a golden test must see
     *                     whole packets)
     */
    public static List<Frame> read(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
        int magic = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (magic == MAGIC_USEC || magic == MAGIC_NSEC) {
            b.order(ByteOrder.LITTLE_ENDIAN);
        } else if (Integer.reverseBytes(magic) == MAGIC_USEC || Integer.reverseBytes(magic) == MAGIC_NSEC) {
            b.order(ByteOrder.BIG_ENDIAN);
        } else {
            throw new IOException(file + ": not a classic pcap (magic " + Integer.toHexString(magic) + ")");
        }
        int linktype = b.getInt(20);
        if (linktype != LINKTYPE_ETHERNET) {
            throw new IOException(file + ": linktype " + linktype + ", need Ethernet (1)");
        }
        List<Frame> frames = new ArrayList<>();
        int off = FILE_HEADER;
        int n = 0;
        while (off + RECORD_HEADER <= b.limit()) {
            int incl = b.getInt(off + 8);
            int orig = b.getInt(off + 12);
            if (incl != orig) {
                throw new IOException(file + ": frame " + (n + 1) + " truncated by the snap length");
            }
            byte[] data = new byte[incl];
            b.position(off + RECORD_HEADER);
            b.get(data);
            frames.add(new Frame(++n, data));
            off += RECORD_HEADER + incl;
        }
        return frames;
    }

    /** The big-endian unsigned 16 bits at {@code off}. */
    public static int u16(byte[] d, int off) {
        return ((d[off] & 0xff) << 8) | (d[off + 1] & 0xff);
    }

    /** The big-endian 32 bits at {@code off}. */
    public static int i32(byte[] d, int off) {
        return (u16(d, off) << 16) | u16(d, off + 2);
    }
}
