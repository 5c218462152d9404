package org.jrdma.ulp.iser.target;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.ulp.iser.conn.IserTransport;

/**
 * One target as a ConfigAdmin configuration describes it, checked before anything is created, and applied
 * to / removed from the {@link TargetTree} as a whole (a failure half-way undoes what it made).
 */
record TargetSpec(String iqn, List<Portal> portals, List<Lun> luns, boolean readOnly, List<String> initiators,
                  String chapUserid, String chapPassword, String chapMutualUserid, String chapMutualPassword,
                  boolean enabled) {

    record Portal(String ip, int port) {
    }

    /** A LUN's backstore: {@code file} null for a ramdisk; {@code size} 0 keeps an existing file's size. */
    record Lun(String plugin, String name, Path file, long size) {
    }

    static TargetSpec of(IserTargetConfig c) throws TargetConfigException {
        List<Portal> portals = new ArrayList<>();
        for (String p : nonNull(c.portals())) {
            portals.add(portal(p.strip()));
        }
        List<Lun> luns = new ArrayList<>();
        for (String l : nonNull(c.luns())) {
            luns.add(lun(l.strip()));
        }
        List<String> initiators = new ArrayList<>();
        for (String i : nonNull(c.initiators())) {
            initiators.add(Wwn.normalize(i));
        }
        if (c.chapUserid().isEmpty() != c.chapPassword().isEmpty()
                || c.chapMutualUserid().isEmpty() != c.chapMutualPassword().isEmpty()) {
            throw new TargetConfigException("CHAP needs both a userid and a password");
        }
        if (!c.chapMutualUserid().isEmpty() && c.chapUserid().isEmpty()) {
            throw new TargetConfigException("mutual CHAP needs one-way CHAP too");
        }
        return new TargetSpec(Wwn.normalize(c.iqn()), List.copyOf(portals), List.copyOf(luns), c.readOnly(),
                List.copyOf(initiators), c.chapUserid(), c.chapPassword(), c.chapMutualUserid(),
                c.chapMutualPassword(), c.enabled());
    }

    /** The entries that say something: Metatype editors write an empty list as one empty string. */
    private static List<String> nonNull(String[] a) {
        return a == null ? List.of() : java.util.Arrays.stream(a).filter(e -> e != null && !e.isBlank()).toList();
    }

    /** {@code IP}, {@code IP:PORT}, {@code [IPv6]:PORT}. */
    static Portal portal(String text) throws TargetConfigException {
        int close = text.lastIndexOf(']');
        int colon = text.lastIndexOf(':');
        boolean hasPort = text.startsWith("[") ? colon > close : colon > 0 && text.indexOf(':') == colon;
        String ip = hasPort ? text.substring(0, colon) : text;
        int port = IserTransport.ISCSI_PORT;
        if (hasPort) {
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new TargetConfigException("Invalid port in portal " + text);
            }
        }
        if (ip.contains(":") && !ip.startsWith("[")) {
            ip = "[" + ip + "]";
        }
        return new Portal(ip, port);
    }

    /** {@code ramdisk:NAME:SIZE} or {@code fileio:NAME:PATH:SIZE} (the path may hold colons). */
    static Lun lun(String text) throws TargetConfigException {
        String[] f = text.split(":", -1);
        if (f.length == 3 && f[0].equals(StorageObject.RAMDISK)) {
            return new Lun(f[0], f[1], null, Sizes.parse(f[2]));
        }
        if (f.length >= 4 && f[0].equals(StorageObject.FILEIO)) {
            String path = text.substring(f[0].length() + f[1].length() + 2, text.lastIndexOf(':'));
            String size = f[f.length - 1];
            return new Lun(f[0], f[1], Path.of(path), size.isEmpty() ? 0 : Sizes.parse(size));
        }
        throw new TargetConfigException("LUN not ramdisk:NAME:SIZE or fileio:NAME:PATH:SIZE: " + text);
    }

    /** Creates the backstores, the target, tpg1 with its LUNs, ACLs, CHAP and iSER portals; all or nothing. */
    void apply(TargetTree tree) throws TargetConfigException {
        tree.edit(() -> {
            List<Lun> made = new ArrayList<>();
            boolean targetMade = false;
            try {
                List<StorageObject> objects = new ArrayList<>();
                for (Lun l : luns) {
                    objects.add(l.file() == null ? tree.createRamdisk(l.name(), l.size())
                            : tree.createFileio(l.name(), l.file(), l.size()));
                    made.add(l);
                }
                Tpg tpg = tree.createTarget(iqn).createTpg(1);
                targetMade = true;
                configure(tpg, objects);
                return null;
            } catch (TargetConfigException | RuntimeException e) {
                undo(tree, targetMade, made);
                throw e;
            }
        });
    }

    private void configure(Tpg tpg, List<StorageObject> objects) throws TargetConfigException {
        tpg.setAttribute(TpgAttribute.GENERATE_NODE_ACLS.key(), initiators.isEmpty() ? 1 : 0);
        tpg.setAttribute(TpgAttribute.DEMO_MODE_WRITE_PROTECT.key(), readOnly ? 1 : 0);
        tpg.setAttribute(TpgAttribute.CACHE_DYNAMIC_ACLS.key(), 1);
        tpg.setAttribute(TpgAttribute.AUTHENTICATION.key(), chapUserid.isEmpty() ? 0 : 1);
        for (int n = 0; n < objects.size(); n++) {
            tpg.createLun(objects.get(n), n, readOnly, null);
        }
        setChap(tpg.auth());
        for (String i : initiators) {
            setChap(tpg.createAcl(i, new ArrayList<>()).auth());
        }
        for (Portal p : portals) {
            tpg.createPortal(p.ip(), p.port());
            tpg.enableIser(p.ip(), p.port(), true, true); // the device may come from a configuration read later
        }
        tpg.enable(enabled);
    }

    private void setChap(ChapAuth auth) {
        auth.set(ChapAuth.Param.USERID, chapUserid);
        auth.set(ChapAuth.Param.PASSWORD, chapPassword);
        auth.set(ChapAuth.Param.MUTUAL_USERID, chapMutualUserid);
        auth.set(ChapAuth.Param.MUTUAL_PASSWORD, chapMutualPassword);
    }

    /** Deletes the target (its listeners stop) and the backstores this configuration made. */
    void remove(TargetTree tree) {
        undo(tree, true, luns);
    }

    private void undo(TargetTree tree, boolean target, List<Lun> made) {
        if (target) {
            try {
                tree.deleteTarget(iqn);
            } catch (TargetConfigException gone) {
                // deleted with targetcli meanwhile: nothing left to do
            }
        }
        for (Lun l : made) {
            try {
                tree.deleteStorageObject(l.plugin(), l.name());
            } catch (TargetConfigException gone) {
                // idem
            }
        }
    }
}
