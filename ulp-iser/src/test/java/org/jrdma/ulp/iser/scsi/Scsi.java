package org.jrdma.ulp.iser.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.TreeMap;

/** Test helper: runs CDBs through a LunTable the way the transport does, and checks answers. */
final class Scsi {
    private static final HexFormat HEX = HexFormat.ofDelimiter(" ");

    /** What came back: the result and the data-in bytes the transport would send (min(produced, EDTL)). */
    record Reply(ScsiResult result, byte[] data) {
        int status() {
            return result.status();
        }

        /** Unsigned byte i of the data-in. */
        int u8(int i) {
            return data[i] & 0xff;
        }

        long be(int offset, int width) {
            long v = 0;
            for (int i = 0; i < width; i++) {
                v = (v << 8) | u8(offset + i);
            }
            return v;
        }

        Reply good() {
            assertEquals(ScsiResult.GOOD, result.status(), () -> "sense " + HEX.formatHex(result.sense()));
            return this;
        }

        /** CHECK CONDITION with fixed-format sense key/ASC/ASCQ of the condition. */
        Reply check(Sense sense) {
            assertEquals(ScsiResult.CHECK_CONDITION, result.status(), "status");
            byte[] s = result.sense();
            assertEquals(18, s.length, "fixed sense length");
            assertEquals(0x70, s[0] & 0xff, "response code");
            assertEquals(10, s[7], "additional sense length");
            assertEquals(sense.key(), s[2] & 0x0f, "sense key");
            assertEquals(sense.asc(), s[12] & 0xff, "ASC");
            assertEquals(sense.ascq(), s[13] & 0xff, "ASCQ");
            return this;
        }

        /** ... and its sense-key specific field pointer. */
        Reply pointer(boolean inCdb, int field) {
            byte[] s = result.sense();
            assertEquals(0x80 | (inCdb ? 0x40 : 0), s[15] & 0xc0, "SKSV and C/D");
            assertEquals(field, ((s[16] & 0xff) << 8) | (s[17] & 0xff), "field pointer");
            return this;
        }

        Reply data(String hex) {
            assertArrayEquals(HEX.parseHex(hex), data, () -> "got " + HEX.formatHex(data));
            return this;
        }
    }

    private Scsi() {
    }

    static byte[] hex(String hex) {
        return HEX.parseHex(hex);
    }

    static String hex(byte[] b) {
        return HEX.formatHex(b);
    }

    static LunTable table(ScsiLun... luns) {
        TreeMap<Integer, ScsiLun> m = new TreeMap<>();
        for (int i = 0; i < luns.length; i++) {
            m.put(i, luns[i]);
        }
        return new LunTable(m);
    }

    /** A data-in command (or one without data when edtl is 0) on LUN {@code lun}. */
    static Reply in(ScsiExecutor ex, int lun, String cdb, int edtl) {
        return in(ex, lun, hex(cdb), edtl);
    }

    static Reply in(ScsiExecutor ex, int lun, byte[] cdb, int edtl) {
        ByteBuffer dataIn = edtl == 0 ? null : ByteBuffer.allocate(edtl);
        ScsiResult r = ex.execute(new ScsiTask(LunTable.encodeLun(lun), cdb16(cdb), edtl, ByteBuffer.allocate(0),
                dataIn));
        int n = Math.min(r.dataInLength(), edtl);
        return new Reply(r, dataIn == null ? new byte[0] : Arrays.copyOf(dataIn.array(), n));
    }

    /** A data-out command: EDTL = data.length. */
    static Reply out(ScsiExecutor ex, int lun, byte[] cdb, byte[] data) {
        return out(ex, lun, cdb, data.length, data);
    }

    static Reply out(ScsiExecutor ex, int lun, byte[] cdb, int edtl, byte[] data) {
        ScsiResult r = ex.execute(new ScsiTask(LunTable.encodeLun(lun), cdb16(cdb), edtl, ByteBuffer.wrap(data),
                null));
        return new Reply(r, new byte[0]);
    }

    static byte[] cdb16(byte[] cdb) {
        return Arrays.copyOf(cdb, 16);
    }

    /** A block command's CDB: opcode, the LBA and the transfer length where SBC-3 puts them for its size. */
    private static byte[] cdb(int size, int opcode, int lbaAt, int lbaWidth, long lba, int lengthAt,
                              int lengthWidth, long blocks) {
        byte[] b = new byte[size];
        b[0] = (byte) opcode;
        put(b, lbaAt, lbaWidth, lba);
        put(b, lengthAt, lengthWidth, blocks);
        return b;
    }

    /** READ(6)/WRITE(6): 21-bit LBA at 1, 1-byte length at 4. */
    static byte[] cdb6(int opcode, long lba, int blocks) {
        return cdb(6, opcode, 1, 3, lba, 4, 1, blocks);
    }

    /** READ(10)/WRITE(10)-style: 4-byte LBA at 2, 2-byte length at 7. */
    static byte[] cdb10(int opcode, long lba, int blocks) {
        return cdb(10, opcode, 2, 4, lba, 7, 2, blocks);
    }

    /** READ(12)/WRITE(12): 4-byte LBA at 2, 4-byte length at 6. */
    static byte[] cdb12(int opcode, long lba, long blocks) {
        return cdb(12, opcode, 2, 4, lba, 6, 4, blocks);
    }

    /** READ(16)/WRITE(16)-style: 8-byte LBA at 2, 4-byte length at 10. */
    static byte[] cdb16(int opcode, long lba, long blocks) {
        return cdb(16, opcode, 2, 8, lba, 10, 4, blocks);
    }

    static void put(byte[] b, int offset, int width, long v) {
        for (int i = width - 1; i >= 0; i--) {
            b[offset + i] = (byte) v;
            v >>>= 8;
        }
    }

    /** Deterministic non-zero pattern, different per seed. */
    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >>> 9));
        }
        return b;
    }
}
