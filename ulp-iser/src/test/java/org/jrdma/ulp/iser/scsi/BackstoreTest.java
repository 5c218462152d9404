package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ramdisk and fileio backstores on their own: read-back, laziness, sparseness, bounds. */
class BackstoreTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private static void roundTrip(Backstore store, long offset, int length, int seed) throws IOException {
        byte[] data = pattern(length, seed);
        store.write(offset, ByteBuffer.wrap(data));
        ByteBuffer back = ByteBuffer.allocate(length);
        store.read(offset, back);
        assertEquals(length, back.position(), "read advances the position");
        assertArrayEquals(data, back.array(), "at " + offset);
    }

    private static void readBackAtSeveralOffsets(Backstore store) throws IOException {
        long size = store.size();
        roundTrip(store, 0, 512, 1);
        roundTrip(store, 65536 - 1024, 4096, 2); // across a 64 KiB chunk boundary
        roundTrip(store, size / 2 + 512, 128 * 1024, 3);
        roundTrip(store, size - 512, 512, 4); // the last block
        ByteBuffer first = ByteBuffer.allocate(512);
        store.read(0, first);
        assertArrayEquals(pattern(512, 1), first.array(), "earlier writes stay");
    }

    /** The target runs a ramdisk LUN's commands where they arrive and a fileio LUN's on a worker. */
    @Test
    void onlyFileioLunsMayBlock() {
        LunTable rd = Stores.RAMDISK.table(dir, MIB, false);
        LunTable fd = Stores.FILEIO.table(dir, MIB, false);
        assertFalse(rd.mayBlock(LunTable.encodeLun(0)));
        assertTrue(fd.mayBlock(LunTable.encodeLun(0)));
        assertFalse(fd.mayBlock(LunTable.encodeLun(5)), "a missing LUN answers from memory");
        assertTrue(new ScsiExecutor() {
            @Override
            public ScsiResult execute(ScsiTask task) {
                return null;
            }
        }.mayBlock(0), "an executor that does not say may block");
    }

    @Test
    void ramdiskReadsBackAndAllocatesOnlyWrittenChunks() throws IOException {
        RamdiskBackstore rd = new RamdiskBackstore("rd0", 1L << 30);
        assertEquals(0, rd.allocatedChunks(), "a 1 GiB ramdisk costs nothing before it is written");
        ByteBuffer zeroes = ByteBuffer.allocate(4096);
        rd.read(12345 * 512L, zeroes);
        assertArrayEquals(new byte[4096], zeroes.array());
        readBackAtSeveralOffsets(rd);
        assertEquals(1 + 2 + 2 + 1, rd.allocatedChunks());
        assertEquals("ramdisk", rd.plugin());
        assertEquals(512, rd.blockSize());
    }

    @Test
    void ramdiskDiscardFreesWholeChunksAndZeroesPartialOnes() throws IOException {
        RamdiskBackstore rd = new RamdiskBackstore("rd0", 64 * MIB);
        rd.write(0, ByteBuffer.wrap(pattern(3 * 65536, 9)));
        assertEquals(3, rd.allocatedChunks());
        rd.discard(512, 2 * 65536 - 512); // partial chunk 0, whole chunk 1
        assertEquals(2, rd.allocatedChunks());
        ByteBuffer back = ByteBuffer.allocate(3 * 65536);
        rd.read(0, back);
        byte[] expected = pattern(3 * 65536, 9);
        java.util.Arrays.fill(expected, 512, 2 * 65536, (byte) 0);
        assertArrayEquals(expected, back.array());
        assertTrue(rd.thinProvisioned());
    }

    @Test
    void hugeRamdiskIsCheapAndOutOfRangeIsAnIOException() throws IOException {
        RamdiskBackstore rd = new RamdiskBackstore("big", 16L << 40); // 16 TiB, unwritten
        roundTrip(rd, rd.size() - 512, 512, 5);
        assertEquals(1, rd.allocatedChunks());
        assertThrows(IOException.class, () -> rd.read(rd.size(), ByteBuffer.allocate(512)));
        assertThrows(IOException.class, () -> rd.write(rd.size() - 512, ByteBuffer.allocate(1024)));
        assertThrows(IOException.class, () -> rd.write(-512, ByteBuffer.allocate(512)));
        rd.close();
        assertThrows(IOException.class, () -> rd.read(0, ByteBuffer.allocate(512)));
        assertThrows(IllegalArgumentException.class, () -> new RamdiskBackstore("tiny", 511));
    }

    @Test
    void fileioCreatesASparseFileOfTheSize() throws Exception {
        Path file = dir.resolve("lun0.img");
        try (FileioBackstore fd = new FileioBackstore("fd0", file, 64 * MIB + 100)) {
            assertEquals(64 * MIB, fd.size(), "rounded down to whole blocks");
            assertEquals(64 * MIB, Files.size(file));
            assertTrue(allocatedBytes(file) < MIB, "sparse: " + allocatedBytes(file) + " bytes allocated");
            readBackAtSeveralOffsets(fd);
            assertEquals(64 * MIB, Files.size(file), "writes inside never grow the file");
            assertTrue(allocatedBytes(file) < 4 * MIB, "still sparse after a few writes");
            assertEquals("fileio", fd.plugin());
        }
    }

    @Test
    void fileioOfSizeZeroUsesTheFileAndNeverWritesBeyondIt() throws Exception {
        Path file = dir.resolve("existing.img");
        Files.write(file, pattern(8192, 3));
        try (FileioBackstore fd = new FileioBackstore("fd1", file, 0, false)) {
            assertEquals(8192, fd.size());
            ByteBuffer back = ByteBuffer.allocate(8192);
            fd.read(0, back);
            assertArrayEquals(pattern(8192, 3), back.array(), "existing data kept");
            assertThrows(IOException.class, () -> fd.write(8192, ByteBuffer.allocate(512)));
            assertThrows(IOException.class, () -> fd.write(7680, ByteBuffer.allocate(1024)));
            assertThrows(IOException.class, () -> fd.discard(4096, 8192));
            assertThrows(IOException.class, () -> fd.read(8192, ByteBuffer.allocate(512)));
            assertEquals(8192, Files.size(file), "out of range never touches the file beyond its size");
            fd.discard(512, 1024);
            fd.flush();
            byte[] expected = pattern(8192, 3);
            java.util.Arrays.fill(expected, 512, 1536, (byte) 0);
            assertArrayEquals(expected, Files.readAllBytes(file), "discard zero-fills (fileio is not thin)");
            assertTrue(!fd.thinProvisioned());
        }
        assertThrows(IOException.class, () -> new FileioBackstore("empty", dir.resolve("empty.img"), 0));
    }

    @Test
    void thinFileioPunchesHolesOnDiscard() throws Exception {
        Path file = dir.resolve("thin.img");
        try (FileioBackstore fd = new FileioBackstore("fd3", file, 64 * MIB)) {
            assertTrue(fd.thinProvisioned(), "fallocate(1) punches holes on this file system");
            fd.write(MIB, ByteBuffer.wrap(pattern(4 * (int) MIB, 6)));
            fd.flush();
            long written = allocatedBytes(file);
            assertTrue(written >= 4 * MIB, "4 MiB allocated: " + written);
            fd.discard(MIB + 512 * 1024, 3 * MIB); // from the middle of the first MiB written
            long after = allocatedBytes(file);
            assertTrue(after <= written - 3 * MIB + 64 * 1024, "3 MiB freed: " + written + " -> " + after);
            ByteBuffer back = ByteBuffer.allocate(4 * (int) MIB);
            fd.read(MIB, back);
            byte[] expected = pattern(4 * (int) MIB, 6);
            java.util.Arrays.fill(expected, 512 * 1024, 512 * 1024 + 3 * (int) MIB, (byte) 0);
            assertArrayEquals(expected, back.array(), "the hole reads zeroes, the rest stays");
            assertEquals(64 * MIB, Files.size(file), "the size stays");
            assertThrows(IOException.class, () -> fd.discard(64 * MIB - 512, 1024));
        }
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "nothing but the backing file");
        }
    }

    @Test
    void theHolePunchProbeChangesNothingInAnExistingFile() throws Exception {
        Path file = dir.resolve("existing-thin.img");
        Files.write(file, pattern(12288, 7));
        try (FileioBackstore fd = new FileioBackstore("fd4", file, 0)) {
            assertTrue(fd.thinProvisioned());
            assertEquals(12288, fd.size());
        }
        assertEquals(12288, Files.size(file));
        assertArrayEquals(pattern(12288, 7), Files.readAllBytes(file));
    }

    @Test
    void fileioKeepsALongerFileAndExportsTheSizeAsked() throws Exception {
        Path file = dir.resolve("long.img");
        Files.write(file, pattern(16384, 4));
        try (FileioBackstore fd = new FileioBackstore("fd2", file, 4096)) {
            assertEquals(4096, fd.size());
            assertThrows(IOException.class, () -> fd.write(4096, ByteBuffer.allocate(512)));
        }
        assertEquals(16384, Files.size(file));
    }

    /** st_blocks * 512 by stat(1): what the file occupies on disk. */
    static long allocatedBytes(Path file) throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "stat finished");
        String[] out = new String(p.getInputStream().readAllBytes()).trim().split(" ");
        return Long.parseLong(out[0]) * Long.parseLong(out[1]);
    }
}
