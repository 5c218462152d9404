package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.cdb10;
import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.jrdma.ulp.iser.scsi.Scsi.out;
import static org.jrdma.ulp.iser.scsi.Scsi.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** UNMAP: the parameter list parsed and validated (SBC-3 5.28) before anything is discarded. */
class UnmapTest {
    private static final long SIZE = 64L << 20;
    private static final long BLOCKS = SIZE / 512;

    @TempDir
    Path dir;
    private RamdiskBackstore rd;
    private LunTable t;

    @BeforeEach
    void fill() {
        rd = new RamdiskBackstore("rd0", SIZE);
        t = Scsi.table(new ScsiLun(rd, false));
        out(t, 0, cdb10(0x2a, 0, 1024), pattern(1024 * 512, 1)).good(); // 512 KiB = 8 chunks
        assertEquals(8, rd.allocatedChunks());
    }

    /** A parameter list: header (UNMAP DATA LENGTH, BLOCK DESCRIPTOR DATA LENGTH) and (lba, blocks) pairs. */
    static byte[] list(long... lbaBlocks) {
        int n = lbaBlocks.length / 2;
        ByteBuffer b = ByteBuffer.allocate(8 + 16 * n);
        b.putShort((short) (6 + 16 * n)).putShort((short) (16 * n)).putInt(0);
        for (int i = 0; i < n; i++) {
            b.putLong(lbaBlocks[2 * i]).putInt((int) lbaBlocks[2 * i + 1]).putInt(0);
        }
        return b.array();
    }

    static byte[] cdb(int listLength) {
        return Scsi.hex(String.format("42 00 00 00 00 00 00 %02x %02x 00", listLength >> 8, listLength & 0xff));
    }

    private void unchanged() {
        assertEquals(8, rd.allocatedChunks(), "nothing discarded");
    }

    @Test
    void descriptorsDiscardTheirRanges() {
        byte[] p = list(128, 128, 512, 256);
        out(t, 0, cdb(p.length), p).good();
        assertEquals(5, rd.allocatedChunks(), "chunks 1, 4 and 5 freed");
        byte[] expected = pattern(1024 * 512, 1);
        java.util.Arrays.fill(expected, 128 * 512, 256 * 512, (byte) 0);
        java.util.Arrays.fill(expected, 512 * 512, 768 * 512, (byte) 0);
        assertArrayEquals(expected, in(t, 0, cdb10(0x28, 0, 1024), 1024 * 512).good().data());
    }

    @Test
    void emptyListsAndZeroBlockDescriptorsDoNothing() {
        out(t, 0, cdb(0), new byte[0]).good();
        byte[] p = list(0, 0);
        out(t, 0, cdb(p.length), p).good();
        byte[] header = list();
        out(t, 0, cdb(8), header).good();
        unchanged();
    }

    @Test
    void shortOrInconsistentListsAreRefused() {
        out(t, 0, cdb(6), new byte[6]).check(Sense.PARAMETER_LIST_LENGTH_ERROR);
        byte[] odd = list(0, 128);
        odd[3] = 15; // BLOCK DESCRIPTOR DATA LENGTH not a multiple of 16
        out(t, 0, cdb(odd.length), odd).check(Sense.INVALID_FIELD_IN_PARAMETER_LIST).pointer(false, 2);
        byte[] longer = list(0, 128);
        longer[3] = 32; // claims two descriptors, carries one
        longer[1] = 38;
        out(t, 0, cdb(longer.length), longer).check(Sense.PARAMETER_LIST_LENGTH_ERROR);
        byte[] shortData = list(0, 128);
        shortData[1] = 4; // UNMAP DATA LENGTH shorter than the descriptors it announces
        out(t, 0, cdb(shortData.length), shortData).check(Sense.INVALID_FIELD_IN_PARAMETER_LIST).pointer(false, 0);
        byte[] p = list(0, 128);
        out(t, 0, cdb(p.length), p.length - 1, java.util.Arrays.copyOf(p, p.length - 1))
                .check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 7); // list longer than EDTL
        unchanged();
    }

    @Test
    void badDescriptorsRefuseTheWholeList() {
        byte[] outside = list(0, 128, BLOCKS - 1, 2);
        out(t, 0, cdb(outside.length), outside).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        byte[] tooLong = list(0, 128, 0, Unmap.MAX_LBA_COUNT + 1);
        out(t, 0, cdb(tooLong.length), tooLong).check(Sense.INVALID_FIELD_IN_PARAMETER_LIST).pointer(false, 32);
        long[] many = new long[2 * (Unmap.MAX_DESCRIPTORS + 1)];
        byte[] tooMany = list(many);
        out(t, 0, cdb(tooMany.length), tooMany).check(Sense.INVALID_FIELD_IN_PARAMETER_LIST).pointer(false, 2);
        unchanged();
    }

    @Test
    void anchorReadOnlyAndFullProvisioning() {
        byte[] p = list(0, 128);
        byte[] anchor = cdb(p.length);
        anchor[1] = 1;
        out(t, 0, anchor, p).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1);
        LunTable readOnly = Scsi.table(new ScsiLun(rd, true));
        out(readOnly, 0, cdb(p.length), p).check(Sense.WRITE_PROTECTED);
        unchanged();
        LunTable fileio = Stores.FILEIO.table(dir, SIZE, false);
        out(fileio, 0, cdb(p.length), p).check(Sense.INVALID_COMMAND_OPERATION_CODE); // LIO without emulate_tpu
    }

    @Test
    void thinFileioPunchesTheListedRanges() throws Exception {
        LunTable thin = Stores.FILEIO_THIN.table(dir, SIZE, false);
        Path file = dir.resolve("fd0.img");
        out(thin, 0, cdb10(0x2a, 0, 4096), pattern(4096 * 512, 2)).good(); // 2 MiB
        in(thin, 0, "35 00 00 00 00 00 00 00 00 00", 0).good();
        long before = BackstoreTest.allocatedBytes(file);
        byte[] p = list(0, 2048, 3072, 1024); // 1 MiB + 512 KiB
        out(thin, 0, cdb(p.length), p).good();
        long after = BackstoreTest.allocatedBytes(file);
        assertTrue(after <= before - (1536L << 10), "1.5 MiB freed: " + before + " -> " + after);
        byte[] expected = pattern(4096 * 512, 2);
        java.util.Arrays.fill(expected, 0, 2048 * 512, (byte) 0);
        java.util.Arrays.fill(expected, 3072 * 512, 4096 * 512, (byte) 0);
        assertArrayEquals(expected, in(thin, 0, cdb10(0x28, 0, 4096), 4096 * 512).good().data());
        assertEquals(0xc0, in(thin, 0, "9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00", 32).good().u8(14),
                "READ CAPACITY(16): LBPME, LBPRZ");
        in(thin, 0, "12 01 b2 00 08 00", 8).good().data("00 b2 00 04 00 e4 02 00");
    }
}
