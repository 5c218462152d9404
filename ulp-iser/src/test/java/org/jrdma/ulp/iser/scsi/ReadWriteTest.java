package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.cdb10;
import static org.jrdma.ulp.iser.scsi.Scsi.cdb12;
import static org.jrdma.ulp.iser.scsi.Scsi.cdb16;
import static org.jrdma.ulp.iser.scsi.Scsi.cdb6;
import static org.jrdma.ulp.iser.scsi.Scsi.hex;
import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.jrdma.ulp.iser.scsi.Scsi.out;
import static org.jrdma.ulp.iser.scsi.Scsi.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** READ/WRITE(6/10/12/16) through a LunTable on each backstore kind: read-back, ranges, EDTL, errors. */
class ReadWriteTest {
    private static final long SIZE = 64L << 20;
    private static final long BLOCKS = SIZE / 512;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Stores.class)
    void everyCdbSizeReadsBackAtSeveralOffsetsIncludingTheLastBlock(Stores kind) {
        LunTable t = kind.table(dir, SIZE, false);
        long[] lbas = {0, 127, 1000, BLOCKS / 2, BLOCKS - 8};
        int seed = 0;
        for (long lba : lbas) {
            byte[][] writes = {cdb6(0x0a, lba, 8), cdb10(0x2a, lba, 8), cdb12(0xaa, lba, 8), cdb16(0x8a, lba, 8)};
            byte[][] reads = {cdb6(0x08, lba, 8), cdb10(0x28, lba, 8), cdb12(0xa8, lba, 8), cdb16(0x88, lba, 8)};
            for (int i = 0; i < writes.length; i++) {
                if (i == 0 && lba > 0x1fffff) {
                    continue;
                }
                byte[] data = pattern(4096, ++seed);
                out(t, 0, writes[i], data).good();
                var r = in(t, 0, reads[(i + 1) % reads.length], 4096).good();
                assertArrayEquals(data, r.data(), "lba " + lba + " cdb " + hex(writes[i]));
            }
        }
        byte[] last = pattern(512, 99);
        out(t, 0, cdb16(0x8a, BLOCKS - 1, 1), last).good();
        assertArrayEquals(last, in(t, 0, cdb10(0x28, BLOCKS - 1, 1), 512).good().data());
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void directBuffersAsTheTransportsPoolHandsThem(Stores kind) {
        LunTable t = kind.table(dir, SIZE, false);
        byte[] data = pattern(65536 + 512, 12); // crosses a ramdisk chunk
        ByteBuffer out = ByteBuffer.allocateDirect(data.length).put(data).flip();
        byte[] w = Scsi.cdb16(cdb10(0x2a, 100, 129));
        assertEquals(ScsiResult.GOOD, t.execute(new ScsiTask(0, w, data.length, out, null)).status());
        ByteBuffer in = ByteBuffer.allocateDirect(data.length + 4096); // a pool buffer larger than EDTL
        ScsiResult r = t.execute(new ScsiTask(0, Scsi.cdb16(cdb10(0x28, 100, 129)), data.length,
                ByteBuffer.allocate(0), in));
        assertEquals(data.length, r.dataInLength());
        byte[] back = new byte[data.length];
        in.get(0, back);
        assertArrayEquals(data, back);
    }

    @Test
    void read6OfLengthZeroMeans256Blocks() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        var r = in(t, 0, cdb6(0x08, 0, 0), 256 * 512).good();
        assertEquals(256 * 512, r.result().dataInLength());
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void fuaAndDpoAreAccepted(Stores kind) {
        LunTable t = kind.table(dir, SIZE, false);
        byte[] w = cdb10(0x2a, 64, 1);
        w[1] = 0x18;
        out(t, 0, w, pattern(512, 7)).good();
        byte[] r = cdb16(0x88, 64, 1);
        r[1] = 0x18;
        assertArrayEquals(pattern(512, 7), in(t, 0, r, 512).good().data());
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void outOfRangeIsLbaOutOfRangeAndTouchesNothing(Stores kind) throws Exception {
        LunTable t = kind.table(dir, SIZE, false);
        out(t, 0, cdb10(0x2a, BLOCKS, 1), new byte[512]).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        out(t, 0, cdb10(0x2a, BLOCKS - 1, 2), new byte[1024]).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        out(t, 0, cdb16(0x8a, -1L, 1), new byte[512]).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        out(t, 0, cdb16(0x8a, BLOCKS + 1, 0), new byte[0]).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        in(t, 0, cdb10(0x28, BLOCKS - 4, 8), 4096).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        in(t, 0, cdb16(0x88, 0x8000_0000_0000_0000L, 1), 512).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        out(t, 0, cdb10(0x2a, BLOCKS, 0), new byte[0]).check(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        out(t, 0, cdb10(0x2a, BLOCKS - 1, 0), new byte[0]).good(); // zero blocks at a valid LBA: nothing to do
        if (kind != Stores.RAMDISK) {
            assertEquals(SIZE, Files.size(dir.resolve("fd0.img")), "the file never grows");
        }
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void aWriteWhoseDataDiffersFromItsTransferLengthIsRefusedAsLioDoes(Stores kind) {
        LunTable t = kind.table(dir, SIZE, false);
        byte[] w = cdb10(0x2a, 10, 2);
        out(t, 0, w, 512, pattern(512, 1)).check(Sense.INVALID_FIELD_IN_COMMAND_IU); // EDTL < CDB
        out(t, 0, w, 2048, pattern(2048, 1)).check(Sense.INVALID_FIELD_IN_COMMAND_IU); // EDTL > CDB
        out(t, 0, w, 1024, pattern(512, 1)).check(Sense.INVALID_FIELD_IN_COMMAND_IU); // data-out short of EDTL
        assertArrayEquals(new byte[1024], in(t, 0, cdb10(0x28, 10, 2), 1024).good().data(), "nothing written");
    }

    @Test
    void readOverflowSendsEdtlAndReportsTheFullLength() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        byte[] data = pattern(8192, 5);
        out(t, 0, cdb10(0x2a, 0, 16), data).good();
        var over = in(t, 0, cdb10(0x28, 0, 16), 1000).good(); // EDTL 1000, not even a block multiple
        assertEquals(8192, over.result().dataInLength(), "produced: the transport computes the overflow");
        assertArrayEquals(Arrays.copyOf(data, 1000), over.data());
        ByteBuffer big = ByteBuffer.allocate(16384);
        Arrays.fill(big.array(), (byte) 0x5a);
        ScsiResult under = t.execute(new ScsiTask(0, Scsi.cdb16(cdb10(0x28, 0, 16)), 16384, ByteBuffer.allocate(0),
                big));
        assertEquals(8192, under.dataInLength(), "underflow: the CDB's length");
        assertArrayEquals(data, Arrays.copyOf(big.array(), 8192));
        assertEquals(0x5a, big.get(8192), "nothing written past the data");
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void readOnlyLunRefusesWritesWithDataProtect(Stores kind) {
        LunTable t = kind.table(dir, SIZE, true);
        out(t, 0, cdb10(0x2a, 0, 1), new byte[512]).check(Sense.WRITE_PROTECTED);
        out(t, 0, cdb16(0x8a, 0, 1), new byte[512]).check(Sense.WRITE_PROTECTED);
        out(t, 0, cdb16(0x93, 0, 1), new byte[512]).check(Sense.WRITE_PROTECTED);
        in(t, 0, cdb10(0x28, 0, 1), 512).good();
        in(t, 0, "35 00 00 00 00 00 00 00 00 00", 0).good(); // SYNCHRONIZE CACHE is not a write
    }

    @Test
    void tooLongATransferAndProtectionInformationAreInvalidFieldsInTheCdb() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        int max = BlockCommands.MAX_TRANSFER_BLOCKS;
        in(t, 0, cdb10(0x28, 0, max + 1), (max + 1) * 512).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 7);
        in(t, 0, cdb16(0x88, 0, max + 1), 4096).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 10);
        in(t, 0, cdb10(0x28, 0, max), max * 512).good();
        byte[] rdprotect = cdb10(0x28, 0, 1);
        rdprotect[1] = 0x20;
        in(t, 0, rdprotect, 512).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1);
    }
}
