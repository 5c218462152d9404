package org.jrdma.ulp.iser.target;

import java.util.SortedMap;
import java.util.TreeMap;

/** {@code /iscsi/IQN}: an iSCSI target node and its TPGs by tag. Guarded by the {@link TargetTree}'s locks. */
public final class IscsiTarget {
    private final TargetTree tree;
    private final String wwn;
    private final SortedMap<Integer, Tpg> tpgs = new TreeMap<>();

    IscsiTarget(TargetTree tree, String wwn) {
        this.tree = tree;
        this.wwn = wwn;
    }

    public String wwn() {
        return wwn;
    }

    /** By tag; the live map: read it inside {@link TargetTree#read}. */
    public SortedMap<Integer, Tpg> tpgs() {
        return tpgs;
    }

    public Tpg tpg(int tag) throws TargetConfigException {
        synchronized (tree.stateLock()) {
            return TargetConfigException.found(tpgs.get(tag), "TPG");
        }
    }

    /**
     * A new TPG (the next free tag from 1 when {@code tag} is null), disabled, with LIO's default attributes
     * but {@code authentication=0} as targetcli sets it.
     */
    public Tpg createTpg(Integer tag) throws TargetConfigException {
        return tree.edit(() -> {
            synchronized (tree.stateLock()) {
                int t = tag == null ? 1 : tag;
                if (tag == null) {
                    while (tpgs.containsKey(t)) {
                        t++;
                    }
                } else if (t < 0) {
                    throw new TargetConfigException("The TPG Tag must be >=0");
                }
                if (tpgs.containsKey(t)) {
                    throw TargetConfigException.exists("TPG");
                }
                Tpg tpg = new Tpg(tree, this, t);
                tpg.setAttribute(TpgAttribute.AUTHENTICATION.key(), 0);
                tpgs.put(t, tpg);
                return tpg;
            }
        });
    }

    public void deleteTpg(int tag) throws TargetConfigException {
        tree.edit(() -> {
            Tpg t = tpg(tag);
            t.unlistenAll();
            synchronized (tree.stateLock()) {
                tpgs.remove(tag);
            }
            return null;
        });
    }

    void unlistenAll() {
        for (Tpg t : tpgs.values()) {
            t.unlistenAll();
        }
    }
}
