package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** The two backstore kinds, for tests that run on both. */
enum Stores {
    RAMDISK, FILEIO;

    Backstore create(Path dir, String name, long size) {
        try {
            return this == RAMDISK ? new RamdiskBackstore(name, size)
                    : new FileioBackstore(name, dir.resolve(name + ".img"), size);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    LunTable table(Path dir, long size, boolean readOnly) {
        return Scsi.table(new ScsiLun(create(dir, this == RAMDISK ? "rd0" : "fd0", size), readOnly));
    }
}
