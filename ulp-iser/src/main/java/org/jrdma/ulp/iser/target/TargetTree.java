package org.jrdma.ulp.iser.target;

import org.jrdma.ulp.iser.conn.InetText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jrdma.ulp.iser.scsi.Backstore;
import org.jrdma.ulp.iser.scsi.FileioBackstore;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The target configuration, LIO's configfs tree as targetcli-fb shows it: {@code /backstores/PLUGIN/NAME}
 * storage objects and {@code /iscsi/IQN/tpgN} targets. One instance (a DS service) is shared by the
 * {@code targetcli} command, the ConfigAdmin factory configurations and the runtime, which reads it at login
 * through {@link TargetDirectory} (a change applies to the next login, as in LIO).
 *
 * <p>Two locks: edits run one at a time under the edit lock (a shell command resolves its path and changes the
 * tree in one {@link #edit}), so the runtime's portal listeners ({@link PortalControl}, called under the edit
 * lock only) follow the configuration in order; the state itself is guarded by the state lock, which readers
 * (logins, {@link #read}) take briefly.
 */
@Component(service = {TargetTree.class, TargetDirectory.class})
public final class TargetTree implements TargetDirectory, AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.ulp.iser");

    /** A change to the tree, run under the edit lock. */
    @FunctionalInterface
    public interface Edit<T> {
        T run() throws TargetConfigException;
    }

    private final Object state = new Object();
    private final Object editLock = new Object();
    private final Map<String, SortedMap<String, StorageObject>> backstores = new TreeMap<>();
    private final SortedMap<String, IscsiTarget> targets = new TreeMap<>();
    /** Listening addresses and how many iSER portals use each (targets may share 0.0.0.0:3260). Edit lock. */
    private final Map<InetSocketAddress, Integer> listening = new HashMap<>();
    private PortalControl control;

    public TargetTree() {
        backstores.put(StorageObject.FILEIO, new TreeMap<>());
        backstores.put(StorageObject.RAMDISK, new TreeMap<>());
    }

    Object stateLock() {
        return state;
    }

    /** Runs {@code e} as one edit: no other edit runs meanwhile. */
    public <T> T edit(Edit<T> e) throws TargetConfigException {
        synchronized (editLock) {
            return e.run();
        }
    }

    /** Reads a consistent view: the live maps of the model may be walked inside. */
    public <T> T read(Supplier<T> view) {
        synchronized (state) {
            return view.get();
        }
    }

    // ---- backstores ----------------------------------------------------------------------------------------

    /** The backstore plugins: {@code fileio}, {@code ramdisk}. */
    public List<String> plugins() {
        return List.copyOf(backstores.keySet());
    }

    /** Storage objects of a plugin by name; the live map: read it inside {@link #read}. */
    public SortedMap<String, StorageObject> storageObjects(String plugin) {
        SortedMap<String, StorageObject> m = backstores.get(plugin);
        return m == null ? new TreeMap<>() : m;
    }

    public Optional<StorageObject> storageObject(String plugin, String name) {
        synchronized (state) {
            return Optional.ofNullable(storageObjects(plugin).get(name));
        }
    }

    /** {@code /backstores/ramdisk create NAME SIZE}. */
    public StorageObject createRamdisk(String name, long size) throws TargetConfigException {
        if (size <= 0) {
            throw new TargetConfigException("Cannot configure StorageObject because size is 0");
        }
        return add(StorageObject.RAMDISK, name, null, () -> new RamdiskBackstore(name, size));
    }

    /**
     * {@code /backstores/fileio create NAME FILE SIZE}: the file is created sparse when missing; an existing
     * file keeps its size ({@code size} 0).
     */
    public StorageObject createFileio(String name, Path file, long size) throws TargetConfigException {
        Path abs = file.toAbsolutePath().normalize();
        return add(StorageObject.FILEIO, name, abs, () -> new FileioBackstore(name, abs, size));
    }

    private interface Opener {
        Backstore open() throws IOException;
    }

    private StorageObject add(String plugin, String name, Path file, Opener opener) throws TargetConfigException {
        if (name == null || name.isEmpty() || name.chars().anyMatch(c -> c == '/' || Character.isWhitespace(c))) {
            throw new TargetConfigException("A storage object's name cannot contain  /, newline or spaces/tabs");
        }
        return edit(() -> {
            synchronized (state) {
                if (backstores.get(plugin).containsKey(name)) {
                    throw new TargetConfigException("Storage object " + plugin + "/" + name + " exists");
                }
                if (file != null) {
                    checkFileUnused(file);
                }
            }
            Backstore b;
            try {
                b = opener.open();
            } catch (IOException | UncheckedIOException e) {
                throw new TargetConfigException("Could not open " + file + ": " + e.getMessage(), e);
            } catch (IllegalArgumentException e) {
                // a size the backstore cannot hold: less than one block, or past what it can index
                throw new TargetConfigException(e.getMessage(), e);
            }
            StorageObject so = new StorageObject(plugin, name, b, file);
            synchronized (state) {
                backstores.get(plugin).put(name, so);
            }
            return so;
        });
    }

    private void checkFileUnused(Path file) throws TargetConfigException {
        for (StorageObject so : backstores.get(StorageObject.FILEIO).values()) {
            if (sameFile(file, so.file())) {
                throw new TargetConfigException("storage object for " + file + " already exists: " + so.name());
            }
        }
    }

    private static boolean sameFile(Path a, Path b) {
        try {
            return a.equals(b) || Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code /backstores/PLUGIN delete NAME}: the LUNs on it go too, then the backstore is closed. */
    public void deleteStorageObject(String plugin, String name) throws TargetConfigException {
        StorageObject so = edit(() -> {
            synchronized (state) {
                StorageObject s = storageObjects(plugin).remove(name);
                if (s == null) {
                    throw new TargetConfigException("No storage object named " + name + ".");
                }
                for (IscsiTarget t : targets.values()) {
                    t.tpgs().values().forEach(tpg -> tpg.dropLunsOf(s));
                }
                return s;
            }
        });
        closeQuietly(so);
    }

    /** Whether a TPG LUN uses it (targetcli: "activated", else "deactivated"). */
    public boolean activated(StorageObject so) {
        synchronized (state) {
            return targets.values().stream().flatMap(t -> t.tpgs().values().stream())
                    .anyMatch(tpg -> tpg.luns().values().stream().anyMatch(l -> l.storage().equals(so)));
        }
    }

    boolean holds(StorageObject so) {
        return storageObjects(so.plugin()).get(so.name()) == so;
    }

    // ---- targets -------------------------------------------------------------------------------------------

    /** {@code /iscsi create WWN} without the TPG targetcli adds (the caller adds tpg1). */
    public IscsiTarget createTarget(String wwn) throws TargetConfigException {
        String name = Wwn.normalize(wwn);
        return edit(() -> {
            synchronized (state) {
                if (targets.containsKey(name)) {
                    throw TargetConfigException.exists("Target");
                }
                IscsiTarget t = new IscsiTarget(this, name);
                targets.put(name, t);
                return t;
            }
        });
    }

    public IscsiTarget target(String wwn) throws TargetConfigException {
        synchronized (state) {
            return TargetConfigException.found(targets.get(Wwn.key(wwn)), "Target");
        }
    }

    /** By WWN; the live map: read it inside {@link #read}. */
    public SortedMap<String, IscsiTarget> targets() {
        return targets;
    }

    /** {@code /iscsi delete WWN}: its portals stop listening; sessions already in stay (as in LIO). */
    public void deleteTarget(String wwn) throws TargetConfigException {
        edit(() -> {
            IscsiTarget t = target(wwn);
            t.unlistenAll();
            synchronized (state) {
                targets.remove(t.wwn());
            }
            return null;
        });
    }

    /** {@code clearconfig confirm=True}: every target, then every storage object. */
    public void clear() {
        List<StorageObject> gone = new ArrayList<>();
        try {
            edit(() -> {
                for (IscsiTarget t : List.copyOf(targets.values())) {
                    deleteTarget(t.wwn());
                }
                synchronized (state) {
                    backstores.values().forEach(m -> {
                        gone.addAll(m.values());
                        m.clear();
                    });
                }
                return null;
            });
        } catch (TargetConfigException e) {
            throw new IllegalStateException(e); // the targets were just listed under the edit lock
        }
        gone.forEach(TargetTree::closeQuietly);
    }

    @Deactivate
    @Override
    public void close() {
        clear();
    }

    private static void closeQuietly(StorageObject so) {
        try {
            so.backstore().close();
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "ulp-iser: closing " + so.path() + ": " + e);
        }
    }

    // ---- the runtime's listeners ---------------------------------------------------------------------------

    /**
     * The runtime takes over the portals: it listens on every iSER-enabled address from now on (a failure is
     * logged, the portal stays configured, as LIO keeps a portal whose np thread could not start).
     */
    public void attach(PortalControl c) {
        synchronized (editLock) {
            control = c;
            for (InetSocketAddress a : listening.keySet()) {
                try {
                    c.enableWhenReady(a);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "ulp-iser: cannot listen on " + a + ": " + e.getMessage());
                }
            }
        }
    }

    /** The runtime is going away: its listeners are stopped; the configuration stays. */
    public void detach(PortalControl c) {
        synchronized (editLock) {
            if (control != c) {
                return;
            }
            for (InetSocketAddress a : listening.keySet()) {
                try {
                    c.disable(a);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "ulp-iser: disable " + a + ": " + e.getMessage());
                }
            }
            control = null;
        }
    }

    /**
     * One more iSER portal on {@code a}: the first one starts the listener; {@code whenReady}: an address with
     * no device yet is listened on once one has it, instead of refused. Under the edit lock.
     */
    void listen(InetSocketAddress a, boolean whenReady) throws TargetConfigException {
        int n = listening.getOrDefault(a, 0);
        if (n == 0 && control != null) {
            try {
                if (whenReady) {
                    control.enableWhenReady(a);
                } else {
                    control.enable(a);
                }
            } catch (RuntimeException e) {
                throw new TargetConfigException("Cannot change iser", e);
            }
        }
        listening.put(a, n + 1);
    }

    /** One iSER portal less on {@code a}: the last one stops the listener. Under the edit lock. */
    void unlisten(InetSocketAddress a) {
        int n = listening.getOrDefault(a, 0);
        if (n <= 1) {
            listening.remove(a);
            if (n == 1 && control != null) {
                control.disable(a);
            }
        } else {
            listening.put(a, n - 1);
        }
    }

    // ---- TargetDirectory -----------------------------------------------------------------------------------

    @Override
    public Optional<PortalGroup> portalGroup(String targetName, InetSocketAddress portal) {
        if (targetName == null || portal == null) {
            return Optional.empty();
        }
        synchronized (state) {
            IscsiTarget t = targets.get(Wwn.key(targetName));
            if (t == null) {
                return Optional.empty();
            }
            return t.tpgs().values().stream().filter(tpg -> tpg.servesIser(portal)).findFirst()
                    .map(PortalGroup.class::cast);
        }
    }

    /**
     * Every enabled TPG with an iSER portal that the initiator may log in to and discover (LIO's
     * {@code iscsit_build_sendtargets_response} for an iSER connection: only iSER portals, a wildcard portal
     * answered with the address the discovery connection came in on).
     */
    @Override
    public List<SendTarget> sendTargets(String initiatorName, InetSocketAddress portal) {
        List<SendTarget> out = new ArrayList<>();
        synchronized (state) {
            for (IscsiTarget t : targets.values()) {
                List<String> addresses = new ArrayList<>();
                for (Tpg tpg : t.tpgs().values()) {
                    if (!tpg.enabled() || !tpg.discoverableBy(initiatorName)) {
                        continue;
                    }
                    for (NetworkPortal p : tpg.portals()) {
                        if (p.iser()) {
                            String ip = p.wildcard() && portal != null
                                    ? InetText.host(portal.getAddress(), true) : p.ip();
                            addresses.add(ip + ":" + p.port() + "," + tpg.tag());
                        }
                    }
                }
                if (!addresses.isEmpty()) {
                    out.add(new SendTarget(t.wwn(), addresses));
                }
            }
        }
        return out;
    }
}
