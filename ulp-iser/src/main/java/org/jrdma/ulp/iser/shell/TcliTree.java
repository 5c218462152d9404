package org.jrdma.ulp.iser.shell;

import static org.jrdma.ulp.iser.shell.TcliNode.join;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.ulp.iser.shell.TcliNode.Kind;
import org.jrdma.ulp.iser.target.ChapAuth;
import org.jrdma.ulp.iser.target.IscsiTarget;
import org.jrdma.ulp.iser.target.MappedLun;
import org.jrdma.ulp.iser.target.NetworkPortal;
import org.jrdma.ulp.iser.target.NodeAcl;
import org.jrdma.ulp.iser.target.Sizes;
import org.jrdma.ulp.iser.target.StorageObject;
import org.jrdma.ulp.iser.target.TargetTree;
import org.jrdma.ulp.iser.target.Tpg;
import org.jrdma.ulp.iser.target.TpgAttribute;
import org.jrdma.ulp.iser.target.TpgLun;

/**
 * Builds targetcli's node tree from the configuration, with the summaries targetcli-fb 2.1.53 prints
 * ({@code [Storage Objects: 1]}, {@code [(64.0MiB) activated]}, {@code [gen-acls, no-auth]}, {@code [iser]}).
 * Only what jrdma has is shown: the fileio and ramdisk backstores and the iscsi fabric (no block, pscsi,
 * loopback, srpt, vhost, xen-pvscsi).
 */
final class TcliTree {
    /** LIO's default ALUA group; every LUN is in it and it is Active/optimized (one path per LUN here). */
    static final String ALUA_GROUP = "default_tg_pt_gp";

    private final TargetTree tree;

    private TcliTree(TargetTree tree) {
        this.tree = tree;
    }

    /** The whole tree as it is now (one consistent read). */
    static TcliNode build(TargetTree tree) {
        return tree.read(() -> new TcliTree(tree).root());
    }

    private TcliNode root() {
        return TcliNode.of("/", "/", Kind.ROOT, tree, "", null, List.of(backstores("/backstores"), iscsi("/iscsi")));
    }

    private TcliNode backstores(String path) {
        List<TcliNode> plugins = new ArrayList<>();
        for (String plugin : tree.plugins()) {
            String p = join(path, plugin);
            List<TcliNode> objects = new ArrayList<>();
            for (StorageObject so : tree.storageObjects(plugin).values()) {
                objects.add(storageObject(join(p, so.name()), so));
            }
            plugins.add(TcliNode.of(plugin, p, Kind.BACKSTORE, plugin, "Storage Objects: " + objects.size(), null,
                    objects));
        }
        return TcliNode.of("backstores", path, Kind.BACKSTORES, null, "", null, plugins);
    }

    private TcliNode storageObject(String path, StorageObject so) {
        String status = tree.activated(so) ? "activated" : "deactivated";
        String size = "(" + Sizes.human(so.size()) + ")";
        String summary = so.file() == null ? size + " " + status : so.file() + " " + size + " write-back " + status;
        String alua = join(path, "alua");
        TcliNode group = TcliNode.of(ALUA_GROUP, join(alua, ALUA_GROUP), Kind.ALUA_GROUP, so,
                "ALUA state: Active/optimized", true, List.of());
        TcliNode aluaNode = TcliNode.of("alua", alua, Kind.ALUA, so, "ALUA Groups: 1", null, List.of(group));
        return TcliNode.of(so.name(), path, Kind.STORAGE_OBJECT, so, summary, true, List.of(aluaNode));
    }

    private TcliNode iscsi(String path) {
        List<TcliNode> targets = new ArrayList<>();
        for (IscsiTarget t : tree.targets().values()) {
            String tp = join(path, t.wwn());
            List<TcliNode> tpgs = new ArrayList<>();
            for (Tpg tpg : t.tpgs().values()) {
                tpgs.add(tpg(join(tp, "tpg" + tpg.tag()), tpg));
            }
            targets.add(TcliNode.of(t.wwn(), tp, Kind.TARGET, t, "TPGs: " + tpgs.size(), null, tpgs));
        }
        return TcliNode.of("iscsi", path, Kind.ISCSI, tree, "Targets: " + targets.size(), null, targets);
    }

    private TcliNode tpg(String path, Tpg tpg) {
        List<TcliNode> children = List.of(acls(join(path, "acls"), tpg), luns(join(path, "luns"), tpg),
                portals(join(path, "portals"), tpg));
        if (!tpg.enabled()) {
            return TcliNode.of(tpg.name(), path, Kind.TPG, tpg, "disabled", false, children);
        }
        boolean genAcls = tpg.attribute(TpgAttribute.GENERATE_NODE_ACLS) == 1;
        List<String> msg = new ArrayList<>(List.of(genAcls ? "gen-acls" : "no-gen-acls"));
        Boolean status = null;
        if (tpg.attribute(TpgAttribute.AUTHENTICATION) == 0) {
            msg.add("no-auth");
            status = genAcls ? Boolean.TRUE : null;
        } else if (!genAcls) {
            msg.add("auth per-acl");
        } else {
            msg.add("tpg-auth");
            status = tpg.auth().complete();
            msg.add(tpg.auth().mutual() ? "mutual auth" : "1-way auth");
        }
        return TcliNode.of(tpg.name(), path, Kind.TPG, tpg, String.join(", ", msg), status, children);
    }

    private TcliNode acls(String path, Tpg tpg) {
        List<TcliNode> acls = new ArrayList<>();
        for (NodeAcl acl : tpg.acls().values()) {
            acls.add(acl(join(path, acl.initiator()), tpg, acl));
        }
        return TcliNode.of("acls", path, Kind.ACLS, tpg, "ACLs: " + acls.size(), null, acls);
    }

    private TcliNode acl(String path, Tpg tpg, NodeAcl acl) {
        List<TcliNode> mapped = new ArrayList<>();
        for (MappedLun m : acl.mappedLuns().values()) {
            TpgLun l = tpg.luns().get(m.tpgLun());
            String summary = "lun" + m.tpgLun() + " " + l.storage().path() + " (" + (m.writeProtect() ? "ro" : "rw") + ")";
            String name = "mapped_lun" + m.mappedLun();
            mapped.add(TcliNode.of(name, join(path, name), Kind.MAPPED_LUN, m, summary, true, List.of()));
        }
        List<String> msg = new ArrayList<>();
        Boolean status = null;
        if (tpg.attribute(TpgAttribute.AUTHENTICATION) == 1) {
            if (tpg.attribute(TpgAttribute.GENERATE_NODE_ACLS) == 1) {
                msg.add("auth via tpg");
            } else {
                ChapAuth auth = acl.auth();
                status = auth.complete();
                msg.add(auth.mutual() ? "mutual auth" : "1-way auth");
            }
        }
        msg.add("Mapped LUNs: " + mapped.size());
        return TcliNode.of(acl.initiator(), path, Kind.ACL, acl, String.join(", ", msg), status, mapped);
    }

    private TcliNode luns(String path, Tpg tpg) {
        List<TcliNode> luns = new ArrayList<>();
        for (TpgLun l : tpg.luns().values()) {
            StorageObject so = l.storage();
            String summary = so.path() + (so.file() == null ? "" : " (" + so.file() + ")") + " (" + ALUA_GROUP + ")";
            String name = "lun" + l.lun();
            luns.add(TcliNode.of(name, join(path, name), Kind.LUN, l, summary, true, List.of()));
        }
        return TcliNode.of("luns", path, Kind.LUNS, tpg, "LUNs: " + luns.size(), null, luns);
    }

    private TcliNode portals(String path, Tpg tpg) {
        List<TcliNode> portals = new ArrayList<>();
        for (NetworkPortal p : tpg.portals()) {
            portals.add(TcliNode.of(p.name(), join(path, p.name()), Kind.PORTAL, p, p.iser() ? "iser" : "", true,
                    List.of()));
        }
        return TcliNode.of("portals", path, Kind.PORTALS, tpg, "Portals: " + portals.size(), null, portals);
    }
}
