package org.jrdma.ulp.iser.shell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jrdma.ulp.iser.target.Sizes;
import org.jrdma.ulp.iser.target.StorageObject;
import org.jrdma.ulp.iser.target.TargetConfigException;

/** {@code /backstores/ramdisk}, {@code /backstores/fileio} and the root's {@code clearconfig} (ui_backstore.py, ui_root.py). */
final class BackstoreCommands {
    private BackstoreCommands() {
    }

    static final TcliCommand RAMDISK_CREATE = TcliCommand.of("create", BackstoreCommands::ramdisk,
            "name", "size", "nullio?", "wwn?");
    static final TcliCommand FILEIO_CREATE = TcliCommand.of("create", BackstoreCommands::fileio,
            "name", "file_or_dev", "size?", "write_back?", "sparse?", "wwn?");
    static final TcliCommand DELETE = TcliCommand.of("delete", BackstoreCommands::delete, "name", "save?");
    static final TcliCommand CLEARCONFIG = TcliCommand.of("clearconfig", BackstoreCommands::clearconfig,
            "confirm?");

    private static void ramdisk(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        if (TcliRun.bool(p.get("nullio"), false)) {
            throw new TargetConfigException("nullio ramdisks are not supported");
        }
        String name = p.get("name");
        run.tree.createRamdisk(name, Sizes.parse(p.get("size")));
        run.info("Created ramdisk " + name + " with size " + p.get("size") + ".");
    }

    /** A missing file is created sparse to {@code size}; an existing file keeps its own size. */
    private static void fileio(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        TcliRun.bool(p.get("write_back"), true); // checked as targetcli does; fileio here is always write-back
        if (!TcliRun.bool(p.get("sparse"), true)) {
            throw new TargetConfigException("sparse=false is not supported: the file is created sparse");
        }
        String name = p.get("name");
        String given = expandUser(p.get("file_or_dev"));
        Path file = Path.of(given);
        String size = p.get("size");
        long bytes;
        if (Files.isRegularFile(file)) {
            try {
                bytes = Files.size(file);
            } catch (IOException e) {
                throw new TargetConfigException("Could not open " + given);
            }
            if (size != null && !size.isEmpty()) {
                run.info(given + " exists, using its size (" + bytes + " bytes) instead");
            }
        } else if (Files.exists(file)) {
            throw new TargetConfigException("Path " + given + " exists but is not a file");
        } else if (size == null || size.isEmpty()) {
            throw new TargetConfigException("Attempting to create file for new fileio backstore, need a size");
        } else {
            bytes = Sizes.parse(size);
        }
        StorageObject so = run.tree.createFileio(name, file, bytes);
        run.info("Created fileio " + name + " with size " + so.size());
    }

    private static String expandUser(String path) {
        return path.equals("~") || path.startsWith("~/") ? System.getProperty("user.home") + path.substring(1) : path;
    }

    private static void delete(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        String name = p.get("name");
        if (node.child(name).isEmpty()) {
            throw new TargetConfigException("No storage object named " + name + ".");
        }
        run.tree.deleteStorageObject((String) node.model(), name);
        run.info("Deleted storage object " + name + ".");
    }

    private static void clearconfig(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        if (!TcliRun.bool(p.get("confirm"), false)) {
            throw new TargetConfigException("As a precaution, confirm=True needs to be set");
        }
        run.tree.clear();
        run.info("All configuration cleared");
    }
}
