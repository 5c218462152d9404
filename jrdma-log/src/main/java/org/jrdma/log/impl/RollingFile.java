package org.jrdma.log.impl;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A log file rolled at a size, as logrotate's {@code size} and {@code rotate N}: when a line would take
 * {@code jrdma.log} past {@code maxBytes}, it becomes {@code jrdma.log.1}, {@code .1} becomes {@code .2}, and
 * so on up to {@code .keep}; the oldest goes. A line longer than {@code maxBytes} is written whole into a
 * fresh file. Lines are flushed as written, so {@code tail -f} and a crash see them.
 */
final class RollingFile implements Closeable {

    private static final byte[] NEWLINE = System.lineSeparator().getBytes(StandardCharsets.UTF_8);

    private final Path file;
    private final long maxBytes;
    private final int keep;
    private OutputStream out;
    private long size;

    RollingFile(Path file, long maxBytes, int keep) throws IOException {
        if (maxBytes <= 0 || keep < 0) {
            throw new IllegalArgumentException("maxBytes " + maxBytes + " and keep " + keep + ": need maxBytes > 0, keep >= 0");
        }
        this.file = file;
        this.maxBytes = maxBytes;
        this.keep = keep;
        Files.createDirectories(file.toAbsolutePath().getParent());
        open();
    }

    private void open() throws IOException {
        out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        size = Files.size(file);
    }

    /** Appends {@code line} and a line separator, rolling first when they would not fit. */
    synchronized void write(String line) throws IOException {
        if (out == null) {
            throw new IOException(file + " is closed");
        }
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        long needed = bytes.length + NEWLINE.length;
        if (size > 0 && size + needed > maxBytes) {
            roll();
        }
        out.write(bytes);
        out.write(NEWLINE);
        out.flush();
        size += needed;
    }

    private void roll() throws IOException {
        out.close();
        if (keep == 0) {
            Files.delete(file);
        } else {
            Files.deleteIfExists(rolled(keep));
            for (int i = keep - 1; i >= 1; i--) {
                if (Files.exists(rolled(i))) {
                    Files.move(rolled(i), rolled(i + 1), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.move(file, rolled(1), StandardCopyOption.REPLACE_EXISTING);
        }
        open();
    }

    Path rolled(int i) {
        return file.resolveSibling(file.getFileName() + "." + i);
    }

    @Override
    public synchronized void close() throws IOException {
        if (out != null) {
            out.close();
            out = null;
        }
    }
}
