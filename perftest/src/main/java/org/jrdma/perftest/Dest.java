package org.jrdma.perftest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.jrdma.ib.core.cli.Printf;

/**
 * {@code struct pingpong_dest}: what each side tells the other of one QP, and its two wire forms:
 * the ASCII record of the TCP exchange ({@code KEY_PRINT_FMT}, 59 bytes, or {@code KEY_PRINT_FMT_GID},
 * 108 bytes, NUL included) and the 56-byte big-endian struct of the rdma_cm exchange.
 */
record Dest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn) {
    static final int KEY_MSG_SIZE = 59;
    static final int KEY_MSG_SIZE_GID = 108;
    static final int STRUCT_SIZE = 56;

    /** {@code sprintf(msg, KEY_PRINT_FMT[_GID], ...)} into the fixed-size message. */
    byte[] key(boolean withGid) {
        StringBuilder sb = new StringBuilder();
        sb.append(Printf.hex(lid & 0xffffffffL, 4)).append(':').append(Printf.hex(outReads & 0xffffffffL, 4)).append(':')
                .append(Printf.hex(qpn & 0xffffffffL, 6)).append(':').append(Printf.hex(psn & 0xffffffffL, 6)).append(':')
                .append(Printf.hex(rkey & 0xffffffffL, 8)).append(':').append(Printf.hex(vaddr, 16)).append(':');
        if (withGid) {
            for (int i = 0; i < 16; i++) {
                sb.append(Printf.hex(gid[i] & 0xff, 2)).append(':');
            }
            sb.append(Printf.hex(srqn & 0xffffffffL, 8)).append(':');
        } else {
            sb.append(Printf.hex(srqn & 0xffffffffL, 8));
        }
        byte[] msg = new byte[withGid ? KEY_MSG_SIZE_GID : KEY_MSG_SIZE];
        byte[] text = sb.toString().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, msg, 0, Math.min(text.length, msg.length - 1));
        return msg;
    }

    /** {@code ethernet_read_keys}: the fields, in hex, between the colons; null if the record does not parse. */
    static Dest parseKey(byte[] msg, boolean withGid) {
        int end = 0;
        while (end < msg.length && msg[end] != 0) {
            end++;
        }
        String[] f = new String(msg, 0, end, StandardCharsets.US_ASCII).split(":", -1);
        try {
            if (!withGid) {
                if (f.length < 7) {
                    return null;
                }
                return new Dest((int) hex(f[0]), (int) hex(f[1]), (int) hex(f[2]), (int) hex(f[3]), (int) hex(f[4]),
                        Long.parseUnsignedLong(f[5], 16), new byte[16], (int) hex(f[6]));
            }
            if (f.length < 23) {
                return null;
            }
            byte[] gid = new byte[16];
            for (int i = 0; i < 16; i++) {
                gid[i] = (byte) hex(f[6 + i]);
            }
            return new Dest((int) hex(f[0]), (int) hex(f[1]), (int) hex(f[2]), (int) hex(f[3]), (int) hex(f[4]),
                    Long.parseUnsignedLong(f[5], 16), gid, (int) hex(f[22]));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static long hex(String s) {
        return Long.parseLong(s, 16);
    }

    /** {@code rdma_write_keys}: the struct with its integers big-endian (x86-64 layout, 4 bytes of padding before vaddr). */
    byte[] struct() {
        ByteBuffer b = ByteBuffer.allocate(STRUCT_SIZE);
        b.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey).putInt(0).putLong(vaddr).put(gid)
                .putInt(srqn).putInt(0);
        return b.array();
    }

    /** {@code rdma_read_keys} (srqn and gid_index are not read back, as there). */
    static Dest parseStruct(byte[] s) {
        ByteBuffer b = ByteBuffer.wrap(s);
        int lid = b.getInt();
        int outReads = b.getInt();
        int qpn = b.getInt();
        int psn = b.getInt();
        int rkey = b.getInt();
        b.getInt();
        long vaddr = b.getLong();
        byte[] gid = new byte[16];
        b.get(gid);
        return new Dest(lid, outReads, qpn, psn, rkey, vaddr, gid, 0);
    }
}
