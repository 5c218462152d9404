package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Deallocating a byte range of a file as LIO's fd_do_unmap does with vfs_fallocate(PUNCH_HOLE | KEEP_SIZE).
 * Java has no fallocate(2), so this runs util-linux's {@code fallocate --punch-hole --keep-size}; whether that
 * works (the tool exists, the file system supports holes) is probed once per file, touching nothing.
 */
final class HolePunch {
    private static final String TOOL = "fallocate";
    private static final long TIMEOUT_SECONDS = 30;

    private HolePunch() {
    }

    /**
     * Whether holes can be punched in this file: punches 4 KiB past its end (KEEP_SIZE), which changes
     * nothing but fails where the tool or the file system's hole punching is missing.
     */
    static boolean supported(Path file, long endOfFile) {
        try {
            punch(file, endOfFile, 4096);
            return true;
        } catch (IOException e) {
            return false;
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
