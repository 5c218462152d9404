package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** The backstore kinds, for tests that run on each: ramdisk, fully provisioned fileio, thin fileio. */
enum Stores {
    RAMDISK, FILEIO, FILEIO_THIN;

    Backstore create(Path dir, String name, long size) {
        try {
            return switch (this) {
                case RAMDISK -> new RamdiskBackstore(name, size);
                case FILEIO -> new FileioBackstore(name, dir.resolve(name + ".img"), size, false);
                case FILEIO_THIN -> new FileioBackstore(name, dir.resolve(name + ".img"), size);
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    LunTable table(Path dir, long size, boolean readOnly) {
        return Scsi.table(new ScsiLun(create(dir, this == RAMDISK ? "rd0" : "fd0", size), readOnly));
    }
}
