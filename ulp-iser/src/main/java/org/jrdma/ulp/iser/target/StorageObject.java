package org.jrdma.ulp.iser.target;

import java.nio.file.Path;
import java.util.Objects;
import org.jrdma.ulp.iser.scsi.Backstore;

/**
 * A storage object of {@code /backstores/PLUGIN/NAME} (rtslib's StorageObject): the scsi package's backstore
 * plus what targetcli shows of it.
 *
 * @param file the fileio backing file ({@code udev_path}), null for a ramdisk
 */
public record StorageObject(String plugin, String name, Backstore backstore, Path file) {
    public static final String RAMDISK = "ramdisk";
    public static final String FILEIO = "fileio";

    public StorageObject {
        Objects.requireNonNull(plugin);
        Objects.requireNonNull(name);
        Objects.requireNonNull(backstore);
    }

    public long size() {
        return backstore.size();
    }

    /** {@code ramdisk/rd0}: how LUNs and rtslib's messages name it. */
    public String path() {
        return plugin + "/" + name;
    }
}
