package org.jrdma.ulp.iser.scsi;

import java.io.IOException;

/**
 * What the backstores share: the targetcli name and plugin, a size in whole 512-byte blocks, and the bounds
 * check every I/O passes first (an out-of-range request is an IOException, never a touch beyond the size).
 */
abstract class AbstractBackstore implements Backstore {
    public static final int BLOCK_SIZE = 512;

    private final String name;
    private final String plugin;

    AbstractBackstore(String plugin, String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(plugin + " needs a name");
        }
        this.plugin = plugin;
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String plugin() {
        return plugin;
    }

    @Override
    public final int blockSize() {
        return BLOCK_SIZE;
    }

    /** Bytes rounded down to whole blocks. */
    static long wholeBlocks(long bytes) {
        return bytes / BLOCK_SIZE * BLOCK_SIZE;
    }

    /** IOException unless offset..offset+length lies inside the size. */
    final void checkRange(long offset, long length) throws IOException {
        long size = size();
        if (offset < 0 || length < 0 || offset > size - length) {
            throw new IOException(plugin + " " + name + ": range " + offset + "+" + length + " beyond " + size);
        }
    }
}
