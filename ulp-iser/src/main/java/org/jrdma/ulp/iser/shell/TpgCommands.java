package org.jrdma.ulp.iser.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jrdma.ulp.iser.shell.TcliNode.Kind;
import org.jrdma.ulp.iser.target.MappedLun;
import org.jrdma.ulp.iser.target.NodeAcl;
import org.jrdma.ulp.iser.target.StorageObject;
import org.jrdma.ulp.iser.target.TargetConfigException;
import org.jrdma.ulp.iser.target.Tpg;
import org.jrdma.ulp.iser.target.TpgLun;

/** {@code tpgN/luns}, {@code tpgN/acls} and a node ACL's mapped LUNs (ui_target.py UILUNs, UINodeACLs, UINodeACL). */
final class TpgCommands {
    private TpgCommands() {
    }

    static final TcliCommand LUN_CREATE = TcliCommand.of("create", TpgCommands::createLun,
            "storage_object", "lun?", "add_mapped_luns?");
    static final TcliCommand LUN_DELETE = TcliCommand.of("delete", TpgCommands::deleteLun, "lun");
    static final TcliCommand ACL_CREATE = TcliCommand.of("create", TpgCommands::createAcl,
            "wwn", "add_mapped_luns?");
    static final TcliCommand ACL_DELETE = TcliCommand.of("delete", TpgCommands::deleteAcl, "wwn");
    static final TcliCommand MAPPED_CREATE = TcliCommand.of("create", TpgCommands::createMapped,
            "mapped_lun", "tpg_lun_or_backstore", "write_protect?");
    static final TcliCommand MAPPED_DELETE = TcliCommand.of("delete", TpgCommands::deleteMapped, "mapped_lun");

    /** A storage object named by its path ({@code /backstores/ramdisk/rd0}); targetcli's error otherwise. */
    private static StorageObject storageObject(TcliRun run, TcliNode from, String path) throws TargetConfigException {
        try {
            TcliNode n = run.node(path, from);
            if (n.kind() == Kind.STORAGE_OBJECT) {
                return (StorageObject) n.model();
            }
        } catch (TargetConfigException e) {
            // targetcli would try the path as a file or block device here: not supported
        }
        throw new TargetConfigException("storage object or path not valid");
    }

    /** {@code lun=N} or {@code lun=lunN}. */
    private static int lunNumber(String text) throws TargetConfigException {
        String t = text.toLowerCase(Locale.ROOT).startsWith("lun") ? text.substring(3) : text;
        try {
            return Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new TargetConfigException("LUN must be 0 to " + TpgLun.MAX_LUN);
        }
    }

    private static void createLun(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        Tpg tpg = (Tpg) node.model();
        StorageObject so = storageObject(run, node, p.get("storage_object"));
        Integer lun = p.containsKey("lun") ? lunNumber(p.get("lun")) : null;
        boolean addMapped = TcliRun.bool(p.get("add_mapped_luns"), true);
        List<Tpg.AclMapping> mapped = new ArrayList<>();
        TpgLun created = tpg.createLun(so, lun, false, addMapped ? mapped : null);
        run.info("Created LUN " + created.lun() + ".");
        for (Tpg.AclMapping m : mapped) {
            run.info("Created LUN " + m.mapping().tpgLun() + "->" + m.mapping().mappedLun()
                    + " mapping in node ACL " + m.initiator());
        }
    }

    private static void deleteLun(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        int lun;
        try {
            lun = lunNumber(p.get("lun"));
        } catch (TargetConfigException e) {
            throw new TargetConfigException("Invalid LUN");
        }
        ((Tpg) node.model()).deleteLun(lun);
        run.info("Deleted LUN " + lun + ".");
    }

    private static void createAcl(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        Tpg tpg = (Tpg) node.model();
        boolean addMapped = TcliRun.bool(p.get("add_mapped_luns"), true);
        List<MappedLun> mapped = new ArrayList<>();
        NodeAcl acl = tpg.createAcl(p.get("wwn"), addMapped ? mapped : null);
        run.info("Created Node ACL for " + acl.initiator());
        for (MappedLun m : mapped) {
            run.info("Created mapped LUN " + m.mappedLun() + ".");
        }
    }

    private static void deleteAcl(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        ((Tpg) node.model()).deleteAcl(p.get("wwn"));
        run.info("Deleted Node ACL " + p.get("wwn") + ".");
    }

    /** The ACL node's parent ({@code acls}) holds the TPG. */
    private static Tpg tpgOfAcl(TcliRun run, TcliNode aclNode) throws TargetConfigException {
        return (Tpg) run.node("..", aclNode).model();
    }

    private static void createMapped(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        Tpg tpg = tpgOfAcl(run, node);
        int mapped;
        try {
            mapped = Integer.parseInt(p.get("mapped_lun"));
        } catch (NumberFormatException e) {
            throw new TargetConfigException("mapped_lun must be an integer");
        }
        String target = p.get("tpg_lun_or_backstore");
        int tpgLun;
        try {
            tpgLun = Integer.parseInt(target.startsWith("lun") ? target.substring(3) : target);
        } catch (NumberFormatException e) {
            tpgLun = lunOf(run, node, tpg, target);
        }
        boolean wp = TcliRun.bool(p.get("write_protect"), false);
        MappedLun m = tpg.createMappedLun((NodeAcl) node.model(), mapped, tpgLun, wp);
        run.info("Created Mapped LUN " + m.mappedLun() + ".");
    }

    /** The TPG LUN on a storage object, created first when there is none (as targetcli does). */
    private static int lunOf(TcliRun run, TcliNode node, Tpg tpg, String path) throws TargetConfigException {
        StorageObject so;
        try {
            so = storageObject(run, node, path);
        } catch (TargetConfigException e) {
            throw new TargetConfigException("LUN, storage object, or path not valid");
        }
        for (TpgLun l : run.tree.read(() -> List.copyOf(tpg.luns().values()))) {
            if (l.storage().equals(so)) {
                return l.lun();
            }
        }
        TpgLun created = tpg.createLun(so, null, false, null);
        run.info("Created LUN " + created.lun() + ".");
        return created.lun();
    }

    private static void deleteMapped(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        int mapped;
        try {
            mapped = Integer.parseInt(p.get("mapped_lun"));
        } catch (NumberFormatException e) {
            throw new TargetConfigException("mapped_lun must be an integer");
        }
        tpgOfAcl(run, node).deleteMappedLun((NodeAcl) node.model(), mapped);
        run.info("Deleted Mapped LUN " + mapped + ".");
    }
}
