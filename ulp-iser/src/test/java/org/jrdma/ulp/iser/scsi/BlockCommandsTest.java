package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.cdb10;
import static org.jrdma.ulp.iser.scsi.Scsi.cdb16;
import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.jrdma.ulp.iser.scsi.Scsi.out;
import static org.jrdma.ulp.iser.scsi.Scsi.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** READ CAPACITY, VERIFY, SYNCHRONIZE CACHE and WRITE SAME. */
class BlockCommandsTest {
    private static final long SIZE = 64L << 20;
    private static final long BLOCKS = SIZE / 512;

    @TempDir
    Path dir;

    @Test
    void readCapacity16OfAThinRamdiskAndAFullFileio() {
        LunTable rd = Stores.RAMDISK.table(dir, SIZE, false);
        in(rd, 0, "9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00", 32).good()
                .data("00 00 00 00 00 01 ff ff 00 00 02 00 00 00 c0 00" + " 00".repeat(16));
        LunTable fd = Stores.FILEIO.table(dir, SIZE, false);
        in(fd, 0, "9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00", 32).good()
                .data("00 00 00 00 00 01 ff ff 00 00 02 00" + " 00".repeat(20));
        in(fd, 0, "9e 10 00 00 00 00 00 00 00 00 00 00 00 08 00 00", 32).good().data("00 00 00 00 00 01 ff ff");
    }

    @Test
    void readCapacity10SaysFfffffffWhenTheLunIsTooBig() {
        LunTable big = Scsi.table(new ScsiLun(new RamdiskBackstore("big", 4L << 40), false)); // 4 TiB, lazy
        in(big, 0, "25 00 00 00 00 00 00 00 00 00", 8).good().data("ff ff ff ff 00 00 02 00");
        in(big, 0, "9e 10 00 00 00 00 00 00 00 00 00 00 00 0c 00 00", 12).good()
                .data("00 00 00 01 ff ff ff ff 00 00 02 00");
    }

    @Test
    void verifyWithoutByteCheckIsGoodInsideTheLun() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        in(t, 0, cdb10(0x2f, BLOCKS - 8, 8), 0).good();
        in(t, 0, cdb16(0x8f, 0, 8), 0).good();
        in(t, 0, cdb10(0x2f, BLOCKS - 4, 8), 0).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        byte[] bytchk = cdb10(0x2f, 0, 1);
        bytchk[1] = 0x02;
        in(t, 0, bytchk, 0).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1);
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void synchronizeCacheFlushesAndChecksTheRange(Stores kind) {
        LunTable t = kind.table(dir, SIZE, false);
        in(t, 0, cdb10(0x35, 0, 0), 0).good(); // to the end of the medium
        in(t, 0, cdb16(0x91, 100, 8), 0).good();
        in(t, 0, cdb16(0x91, BLOCKS, 1), 0).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void writeSameRepeatsOneBlock(Stores kind) {
        LunTable t = kind.table(dir, SIZE, false);
        byte[] block = pattern(512, 3);
        out(t, 0, cdb16(0x93, 1000, 300), block).good();
        out(t, 0, cdb10(0x41, BLOCKS - 2, 2), block).good();
        byte[] expected = new byte[302 * 512];
        for (int i = 0; i < 300; i++) {
            System.arraycopy(block, 0, expected, i * 512, 512);
        }
        var r = in(t, 0, cdb10(0x28, 1000, 302), 302 * 512).good();
        assertArrayEquals(expected, r.data(), "300 copies, then the two untouched blocks");
        assertArrayEquals(Arrays.copyOf(expected, 1024), in(t, 0, cdb10(0x28, BLOCKS - 2, 2), 1024).data());
    }

    @Test
    void writeSameWithUnmapOnAThinLunDiscards() {
        RamdiskBackstore rd = new RamdiskBackstore("rd0", SIZE);
        LunTable t = Scsi.table(new ScsiLun(rd, false));
        out(t, 0, cdb10(0x2a, 0, 512), pattern(512 * 512, 1)).good(); // 256 KiB = 4 chunks
        assertEquals(4, rd.allocatedChunks());
        byte[] unmap = cdb16(0x93, 128, 256);
        unmap[1] = 0x08;
        out(t, 0, unmap, new byte[512]).good();
        assertEquals(2, rd.allocatedChunks(), "chunks 1 and 2 freed");
        var r = in(t, 0, cdb10(0x28, 127, 258), 258 * 512).good();
        byte[] expected = new byte[258 * 512];
        System.arraycopy(pattern(512 * 512, 1), 127 * 512, expected, 0, 512);
        System.arraycopy(pattern(512 * 512, 1), 384 * 512, expected, 257 * 512, 512);
        assertArrayEquals(expected, r.data());
        byte[] ndob = cdb16(0x93, 0, 128);
        ndob[1] = 0x09; // UNMAP + NDOB: no data-out at all
        out(t, 0, ndob, 0, new byte[0]).good();
        assertEquals(1, rd.allocatedChunks());
    }

    @Test
    void writeSameWithUnmapOnThinFileioPunchesAHole() throws Exception {
        LunTable t = Stores.FILEIO_THIN.table(dir, SIZE, false);
        out(t, 0, cdb10(0x2a, 0, 2048), pattern(2048 * 512, 8)).good(); // 1 MiB
        in(t, 0, cdb10(0x35, 0, 0), 0).good();
        long before = BackstoreTest.allocatedBytes(dir.resolve("fd0.img"));
        byte[] unmap = cdb16(0x93, 0, 2048);
        unmap[1] = 0x08;
        out(t, 0, unmap, new byte[512]).good();
        long after = BackstoreTest.allocatedBytes(dir.resolve("fd0.img"));
        assertTrue(after <= before - (1L << 20), "1 MiB freed: " + before + " -> " + after);
        assertArrayEquals(new byte[2048 * 512], in(t, 0, cdb10(0x28, 0, 2048), 2048 * 512).good().data());
    }

    @Test
    void writeSameWithUnmapAndNonZeroDataWritesTheData() {
        RamdiskBackstore rd = new RamdiskBackstore("rd0", SIZE);
        LunTable t = Scsi.table(new ScsiLun(rd, false));
        byte[] unmap = cdb16(0x93, 0, 128);
        unmap[1] = 0x08;
        out(t, 0, unmap, pattern(512, 4)).good();
        assertEquals(1, rd.allocatedChunks());
        assertArrayEquals(pattern(512, 4), in(t, 0, cdb10(0x28, 127, 1), 512).data());
    }

    @Test
    void writeSameErrors() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        out(t, 0, cdb16(0x93, 0, 0), new byte[512]).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 10); // WSNZ
        out(t, 0, cdb10(0x41, 0, 0), new byte[512]).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 7);
        out(t, 0, cdb16(0x93, 0, BlockCommands.MAX_WRITE_SAME_BLOCKS + 1), new byte[512])
                .check(Sense.INVALID_FIELD_IN_CDB);
        out(t, 0, cdb16(0x93, BLOCKS - 1, 2), new byte[512]).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        out(t, 0, cdb16(0x93, 0, 2), new byte[1024]).check(Sense.INVALID_FIELD_IN_COMMAND_IU);
        out(t, 0, cdb16(0x93, 0, 2), 512, new byte[100]).check(Sense.INVALID_FIELD_IN_COMMAND_IU);
        byte[] wrprotect = cdb16(0x93, 0, 1);
        wrprotect[1] = 0x20;
        out(t, 0, wrprotect, new byte[512]).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1);
    }
}
