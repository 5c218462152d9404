package org.jrdma.ulp.iser.target;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;
import org.jrdma.ulp.iser.scsi.ScsiLun;
import org.jrdma.ulp.iser.scsi.TargetPort;

/**
 * {@code /iscsi/IQN/tpgN}: one target portal group (LIO's {@code tpgt_N}) with its attributes, TPG-level CHAP,
 * LUNs, network portals and node ACLs; and the {@link PortalGroup} the runtime asks at login. Edits hold the
 * tree's edit lock (so portal listeners follow the configuration in order) and change state under its state
 * lock; the runtime's reads take only the state lock. The live maps returned are for reading inside
 * {@link TargetTree#read}.
 */
public final class Tpg implements PortalGroup {
    /** A mapped LUN added to a node ACL by {@code luns create} (targetcli's auto_add_mapped_luns). */
    public record AclMapping(String initiator, MappedLun mapping) {
    }

    private final TargetTree tree;
    private final Object state;
    private final IscsiTarget target;
    private final String targetName;
    private final int tag;
    private final Map<TpgAttribute, Integer> attributes = new EnumMap<>(TpgAttribute.class);
    private final ChapAuth auth;
    private final SortedMap<Integer, TpgLun> luns = new TreeMap<>();
    private final Map<String, NetworkPortal> portals = new LinkedHashMap<>();
    private final SortedMap<String, NodeAcl> acls = new TreeMap<>();
    private final ExportedLuns exported = new ExportedLuns();
    private boolean enabled;

    Tpg(TargetTree tree, IscsiTarget target, int tag) {
        this.tree = tree;
        this.state = tree.stateLock();
        this.target = target;
        this.targetName = target.wwn();
        this.tag = tag;
        this.auth = new ChapAuth(state);
        for (TpgAttribute a : TpgAttribute.values()) {
            attributes.put(a, a.defaultValue());
        }
    }

    @Override
    public String targetName() {
        return targetName;
    }

    @Override
    public int tag() {
        return tag;
    }

    /** {@code tpg1}: the node name in targetcli. */
    public String name() {
        return "tpg" + tag;
    }

    public boolean enabled() {
        synchronized (state) {
            return enabled;
        }
    }

    public int attribute(TpgAttribute a) {
        synchronized (state) {
            return attributes.get(a);
        }
    }

    public ChapAuth auth() {
        return auth;
    }

    public SortedMap<Integer, TpgLun> luns() {
        return luns;
    }

    public Collection<NetworkPortal> portals() {
        return portals.values();
    }

    public SortedMap<String, NodeAcl> acls() {
        return acls;
    }

    // ---- edits -------------------------------------------------------------------------------------------

    public void enable(boolean on) {
        synchronized (state) {
            enabled = on;
        }
    }

    /** Sets an attribute (the configfs write's EINVAL for an unknown value); returns the value now. */
    public int setAttribute(String key, int value) throws TargetConfigException {
        TpgAttribute a = TpgAttribute.of(key)
                .orElseThrow(() -> new TargetConfigException("Cannot find attribute: " + key));
        if (!a.accepts(value)) {
            throw new TargetConfigException("Cannot set attribute " + key + ": [Errno 22] Invalid argument");
        }
        synchronized (state) {
            attributes.put(a, value);
            return value;
        }
    }

    /**
     * {@code luns create /backstores/PLUGIN/NAME [lun=N]}: the lowest free LUN when {@code lun} is null; with
     * {@code addMappedLuns} each node ACL gets a mapped LUN for it (same number, or its lowest free one).
     */
    public TpgLun createLun(StorageObject so, Integer lun, boolean readOnly, List<AclMapping> mapped)
            throws TargetConfigException {
        return tree.edit(() -> {
            synchronized (state) {
                if (!tree.holds(so)) {
                    throw new TargetConfigException("storage_object does not exist in configFS");
                }
                for (TpgLun l : luns.values()) {
                    if (l.storage().equals(so)) {
                        throw new TargetConfigException("lun for storage object " + so.path() + " already exists");
                    }
                }
                int n = lun == null ? freeLun() : lun;
                if (n < 0 || n > TpgLun.MAX_LUN) {
                    throw new TargetConfigException("LUN must be 0 to " + TpgLun.MAX_LUN);
                }
                if (luns.containsKey(n)) {
                    throw TargetConfigException.exists("LUN");
                }
                TpgLun created = new TpgLun(n, so, readOnly);
                luns.put(n, created);
                if (mapped != null) {
                    for (NodeAcl acl : acls.values()) {
                        MappedLun m = new MappedLun(acl.freeMappedLun(lun == null ? 0 : n), n, false);
                        acl.mappedLuns().put(m.mappedLun(), m);
                        mapped.add(new AclMapping(acl.initiator(), m));
                    }
                }
                return created;
            }
        });
    }

    private int freeLun() throws TargetConfigException {
        for (int n = 0; n <= TpgLun.MAX_LUN; n++) {
            if (!luns.containsKey(n)) {
                return n;
            }
        }
        throw new TargetConfigException("All LUNs 0-" + TpgLun.MAX_LUN + " in use");
    }

    /** {@code luns delete N}: the mapped LUNs that point at it go too (rtslib's LUN.delete). */
    public void deleteLun(int lun) throws TargetConfigException {
        tree.edit(() -> {
            synchronized (state) {
                if (luns.remove(lun) == null) {
                    throw TargetConfigException.missing("LUN");
                }
                exported.drop(lun);
                for (NodeAcl acl : acls.values()) {
                    acl.mappedLuns().values().removeIf(m -> m.tpgLun() == lun);
                }
                return null;
            }
        });
    }

    /** Drops the LUNs on a storage object being deleted; called by the tree under its locks. */
    void dropLunsOf(StorageObject so) {
        List<Integer> gone = new ArrayList<>();
        luns.values().stream().filter(l -> l.storage().equals(so)).forEach(l -> gone.add(l.lun()));
        for (int n : gone) {
            luns.remove(n);
            exported.drop(n);
            for (NodeAcl acl : acls.values()) {
                acl.mappedLuns().values().removeIf(m -> m.tpgLun() == n);
            }
        }
    }

    public NetworkPortal createPortal(String ip, int port) throws TargetConfigException {
        if (port <= 0 || port > 65535) {
            throw new TargetConfigException("Invalid port");
        }
        NetworkPortal p = new NetworkPortal(ip, port);
        return tree.edit(() -> {
            synchronized (state) {
                if (portals.containsKey(p.name())) {
                    throw TargetConfigException.exists("NetworkPortal");
                }
                // LIO: TPGs within a target cannot share ip:port (the np's tpg_np list, EEXIST)
                for (Tpg other : target.tpgs().values()) {
                    if (other != this && other.portals.containsKey(p.name())) {
                        throw new TargetConfigException("Could not create NetworkPortal in configFS: [Errno 17] File exists");
                    }
                }
                portals.put(p.name(), p);
                return p;
            }
        });
    }

    public void deletePortal(String ip, int port) throws TargetConfigException {
        tree.edit(() -> {
            NetworkPortal p = portal(ip, port);
            if (p.iser()) {
                tree.unlisten(p.address());
            }
            synchronized (state) {
                portals.remove(p.name());
            }
            return null;
        });
    }

    /**
     * {@code portals/IP:PORT enable_iser BOOL}: the runtime starts or stops listening on the address
     * ({@link PortalControl}); when it cannot, the flag stays and the error is rtslib's "Cannot change iser".
     */
    public void enableIser(String ip, int port, boolean on) throws TargetConfigException {
        enableIser(ip, port, on, false);
    }

    /**
     * As {@link #enableIser(String, int, boolean)}; {@code whenReady}: a portal address that no RDMA device has
     * yet listens once one has it (a ConfigAdmin target at boot) rather than failing.
     */
    void enableIser(String ip, int port, boolean on, boolean whenReady) throws TargetConfigException {
        tree.edit(() -> {
            NetworkPortal p = portal(ip, port);
            if (p.iser() == on) {
                return null;
            }
            if (on) {
                tree.listen(p.address(), whenReady);
            } else {
                tree.unlisten(p.address());
            }
            synchronized (state) {
                p.iser(on);
            }
            return null;
        });
    }

    public NetworkPortal portal(String ip, int port) throws TargetConfigException {
        synchronized (state) {
            return TargetConfigException.found(portals.get(ip + ":" + port), "NetworkPortal");
        }
    }

    /** Stops the listeners of this TPG's iSER portals (the target or TPG is going away). */
    void unlistenAll() {
        List<NetworkPortal> iser;
        synchronized (state) {
            iser = portals.values().stream().filter(NetworkPortal::iser).toList();
        }
        for (NetworkPortal p : iser) {
            tree.unlisten(p.address());
        }
    }

    /** {@code acls create WWN}: with {@code mapped} non-null, a mapped LUN per TPG LUN, numbered alike. */
    public NodeAcl createAcl(String wwn, List<MappedLun> mapped) throws TargetConfigException {
        String name = Wwn.normalize(wwn);
        return tree.edit(() -> {
            synchronized (state) {
                if (acls.containsKey(name)) {
                    throw TargetConfigException.exists("NodeACL");
                }
                NodeAcl acl = new NodeAcl(name, state);
                acls.put(name, acl);
                if (mapped != null) {
                    for (TpgLun l : luns.values()) {
                        MappedLun m = new MappedLun(l.lun(), l.lun(), false);
                        acl.mappedLuns().put(m.mappedLun(), m);
                        mapped.add(m);
                    }
                }
                return acl;
            }
        });
    }

    public void deleteAcl(String wwn) throws TargetConfigException {
        tree.edit(() -> {
            synchronized (state) {
                if (acls.remove(Wwn.key(wwn)) == null) {
                    throw TargetConfigException.missing("NodeACL");
                }
                return null;
            }
        });
    }

    public NodeAcl acl(String wwn) throws TargetConfigException {
        synchronized (state) {
            return TargetConfigException.found(acls.get(Wwn.key(wwn)), "NodeACL");
        }
    }

    /** {@code acls/INIT create MAPPED_LUN TPG_LUN [write_protect]}. */
    public MappedLun createMappedLun(NodeAcl acl, int mappedLun, int tpgLun, boolean writeProtect)
            throws TargetConfigException {
        if (mappedLun < 0 || mappedLun > TpgLun.MAX_LUN) {
            throw new TargetConfigException(mappedLun < 0 ? "Mapped LUN must be >= 0"
                    : "Mapped LUN must be <= " + TpgLun.MAX_LUN);
        }
        return tree.edit(() -> {
            synchronized (state) {
                if (!luns.containsKey(tpgLun)) {
                    throw new TargetConfigException("LUN " + tpgLun + " does not exist in this TPG");
                }
                if (acl.mappedLuns().containsKey(mappedLun)) {
                    throw TargetConfigException.exists("MappedLUN");
                }
                MappedLun m = new MappedLun(mappedLun, tpgLun, writeProtect);
                acl.mappedLuns().put(mappedLun, m);
                return m;
            }
        });
    }

    public void deleteMappedLun(NodeAcl acl, int mappedLun) throws TargetConfigException {
        tree.edit(() -> {
            synchronized (state) {
                if (acl.mappedLuns().remove(mappedLun) == null) {
                    throw TargetConfigException.missing("MappedLUN");
                }
                return null;
            }
        });
    }

    // ---- what the runtime reads at login -------------------------------------------------------------------

    /** Whether a connection to {@code local} may log in here: enabled, with an iSER portal matching it. */
    boolean servesIser(java.net.InetSocketAddress local) {
        return enabled && portals.values().stream().anyMatch(p -> p.iser() && p.matches(local));
    }

    /** Demo mode: {@code generate_node_acls=1} lets initiators without a node ACL in (a dynamic ACL). */
    private boolean demoMode() {
        return attributes.get(TpgAttribute.GENERATE_NODE_ACLS) == 1;
    }

    private NodeAcl explicitAcl(String initiatorName) {
        return initiatorName == null ? null : acls.get(Wwn.key(initiatorName));
    }

    @Override
    public boolean allows(String initiatorName) {
        synchronized (state) {
            return explicitAcl(initiatorName) != null || demoMode();
        }
    }

    /** SendTargets lists the target to an initiator that may log in, demo mode only with demo_mode_discovery. */
    boolean discoverableBy(String initiatorName) {
        return explicitAcl(initiatorName) != null
                || demoMode() && attributes.get(TpgAttribute.DEMO_MODE_DISCOVERY) == 1;
    }

    /**
     * authentication=0: none. Otherwise the node ACL's secrets, or in demo mode the TPG's own ("auth via
     * tpg"); unset secrets come as empty strings, so the CHAP exchange fails as LIO's does.
     */
    @Override
    public Optional<ChapCredentials> chap(String initiatorName) {
        synchronized (state) {
            if (attributes.get(TpgAttribute.AUTHENTICATION) == 0) {
                return Optional.empty();
            }
            NodeAcl acl = explicitAcl(initiatorName);
            return Optional.of(acl != null ? acl.auth().credentials() : auth.credentials());
        }
    }

    /**
     * prod_mode_write_protect for an initiator with a node ACL, demo_mode_write_protect for one let in by demo
     * mode (LIO's {@code tpg_check_prod_mode_write_protect} / {@code tpg_check_demo_mode_write_protect}).
     */
    @Override
    public boolean writeProtected(String initiatorName) {
        synchronized (state) {
            TpgAttribute a = explicitAcl(initiatorName) != null
                    ? TpgAttribute.PROD_MODE_WRITE_PROTECT : TpgAttribute.DEMO_MODE_WRITE_PROTECT;
            return attributes.get(a) == 1;
        }
    }

    /**
     * The LUNs {@code initiatorName} sees, by the number it addresses them with: its mapped LUNs, or every TPG
     * LUN in demo mode; read-only when the LUN, the mapping or the TPG's write protection says so.
     */
    public SortedMap<Integer, TpgLun> visibleLuns(String initiatorName) {
        SortedMap<Integer, TpgLun> seen = new TreeMap<>();
        visible(initiatorName, (n, l, ro) -> seen.put(n, new TpgLun(n, l.storage(), ro)));
        return seen;
    }

    /** Each LUN the initiator sees: the number it uses, the TPG LUN, whether it is read-only. */
    private interface Seen {
        void lun(int number, TpgLun tpgLun, boolean readOnly);
    }

    private void visible(String initiatorName, Seen seen) {
        synchronized (state) {
            NodeAcl acl = explicitAcl(initiatorName);
            boolean wp = writeProtected(initiatorName);
            if (acl != null) {
                for (MappedLun m : acl.mappedLuns().values()) {
                    TpgLun l = luns.get(m.tpgLun());
                    if (l != null) {
                        seen.lun(m.mappedLun(), l, l.readOnly() || m.writeProtect() || wp);
                    }
                }
            } else if (demoMode()) {
                for (TpgLun l : luns.values()) {
                    seen.lun(l.lun(), l, l.readOnly() || wp);
                }
            }
        }
    }

    /** The ScsiLuns are kept per TPG LUN across logins ({@link ExportedLuns}), so their counters add up. */
    @Override
    public ScsiExecutor luns(String initiatorName) {
        SortedMap<Integer, ScsiLun> table = new TreeMap<>();
        visible(initiatorName, (n, l, ro) -> table.put(n, exported.get(l, ro)));
        // LIO numbers a LUN's port (rtpi) per se_lun; one port per TPG here, numbered by its tag
        return new LunTable(table, new TargetPort(targetName, tag, Math.max(1, tag)));
    }

    /** The counters of TPG LUN {@code lun} (commands, bytes) once a read-write session used it, else empty. */
    public Optional<ScsiLun> statistics(int lun) {
        synchronized (state) {
            return Optional.ofNullable(exported.readWrite(lun));
        }
    }
}
