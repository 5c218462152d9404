package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Deallocating a byte range of a file as LIO's fd_do_unmap does with vfs_fallocate(PUNCH_HOLE | KEEP_SIZE).
 * Java has no fallocate(2), so this runs util-linux's {@code fallocate --punch-hole --keep-size}; whether that
 * works (the tool exists, the file system supports holes) is probed once per directory with a scratch file.
 */
final class HolePunch {
    private static final String TOOL = "fallocate";
    private static final long TIMEOUT_SECONDS = 30;

    private HolePunch() {
    }

    /** Whether holes can be punched in files of this directory (never touches an existing file). */
    static boolean supported(Path directory) {
        Path probe = null;
        try {
            probe = Files.createTempFile(directory, ".jrdma-punch-", ".probe");
            try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.allocate(8192), 0);
                ch.force(false);
            }
            punch(probe, 0, 4096);
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            if (probe != null) {
                try {
                    Files.deleteIfExists(probe);
                } catch (IOException ignored) {
                    // a scratch file left behind in the backing store's directory is harmless
                }
            }
        }
    }

    /** Deallocates offset..offset+length (reads return zeroes, the size stays). */
    static void punch(Path file, long offset, long length) throws IOException {
        Process p = new ProcessBuilder(List.of(TOOL, "--punch-hole", "--keep-size", "--offset",
                Long.toString(offset), "--length", Long.toString(length), file.toString()))
                .redirectErrorStream(true).start();
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(TOOL + " on " + file + " did not finish in " + TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(TOOL + " on " + file + " interrupted", e);
        }
        String output = new String(p.getInputStream().readAllBytes()).trim();
        if (p.exitValue() != 0) {
            throw new IOException(TOOL + " --punch-hole on " + file + " failed (" + p.exitValue() + "): " + output);
        }
    }
}
