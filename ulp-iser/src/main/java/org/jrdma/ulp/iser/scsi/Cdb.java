package org.jrdma.ulp.iser.scsi;

/**
 * A CDB as the core reads it: big-endian fields, and the LBA / TRANSFER LENGTH of the block commands by CDB
 * format (SBC-3 4.2.1 / SPC-4 4.2.5: 6-, 10-, 12- and 16-byte layouts).
 */
final class Cdb {
    /** Where LBA and TRANSFER LENGTH sit in each CDB format (offset, width in bytes). */
    enum Format {
        SIX(6, 1, 3, 4, 1),
        TEN(10, 2, 4, 7, 2),
        TWELVE(12, 2, 4, 6, 4),
        SIXTEEN(16, 2, 8, 10, 4);

        final int length;
        final int lbaOffset;
        final int lbaWidth;
        final int lengthOffset;
        final int lengthWidth;

        Format(int length, int lbaOffset, int lbaWidth, int lengthOffset, int lengthWidth) {
            this.length = length;
            this.lbaOffset = lbaOffset;
            this.lbaWidth = lbaWidth;
            this.lengthOffset = lengthOffset;
            this.lengthWidth = lengthWidth;
        }

        /** By the opcode's group code (SPC-4 table 4: group 3 is reserved/variable, 6 and 7 vendor specific). */
        static Format of(int opcode) {
            return switch (opcode >>> 5) {
                case 0 -> SIX;
                case 1, 2 -> TEN;
                case 4 -> SIXTEEN;
                case 5 -> TWELVE;
                default -> null;
            };
        }
    }

    private final byte[] b;

    Cdb(byte[] cdb) {
        this.b = cdb.length >= 16 ? cdb : java.util.Arrays.copyOf(cdb, 16);
    }

    int opcode() {
        return u8(0);
    }

    /** The SERVICE ACTION field of the 12- and 16-byte service-action CDBs (byte 1, bits 4-0). */
    int serviceAction() {
        return u8(1) & 0x1f;
    }

    Format format() {
        return Format.of(opcode());
    }

    int length() {
        Format f = format();
        return f == null ? 16 : f.length;
    }

    int u8(int i) {
        return b[i] & 0xff;
    }

    boolean bit(int i, int bit) {
        return (b[i] & (1 << bit)) != 0;
    }

    int u16(int i) {
        return (u8(i) << 8) | u8(i + 1);
    }

    int u24(int i) {
        return (u8(i) << 16) | u16(i + 1);
    }

    long u32(int i) {
        return ((long) u16(i) << 16) | u16(i + 2);
    }

    long u64(int i) {
        return (u32(i) << 32) | u32(i + 4);
    }

    /** Big-endian field of 1 to 8 bytes. */
    long field(int offset, int width) {
        long v = 0;
        for (int i = 0; i < width; i++) {
            v = (v << 8) | u8(offset + i);
        }
        return v;
    }

    /** The LOGICAL BLOCK ADDRESS of a block command; 6-byte CDBs hold 21 bits. */
    long lba() {
        Format f = format();
        long lba = field(f.lbaOffset, f.lbaWidth);
        return f == Format.SIX ? lba & 0x1f_ffff : lba;
    }

    /** The TRANSFER LENGTH in blocks; READ(6)/WRITE(6) with 0 mean 256 blocks (SBC-3 5.13). */
    long transferLength() {
        Format f = format();
        long n = field(f.lengthOffset, f.lengthWidth);
        return f == Format.SIX && n == 0 ? 256 : n;
    }

    /** FUA of READ/WRITE(10/12/16): byte 1 bit 3. */
    boolean fua() {
        return format() != Format.SIX && bit(1, 3);
    }

    /** The CONTROL byte (last byte of the CDB). */
    int control() {
        return u8(length() - 1);
    }
}
