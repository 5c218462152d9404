package org.jrdma.ulp.iser.target;

import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code tpg1/acls/INITIATOR}: an initiator allowed to log in, the LUNs it sees ({@code mapped_lunN}) and its
 * CHAP secrets. Guarded by the {@link TargetTree}'s lock.
 */
public final class NodeAcl {
    private final String initiator;
    private final ChapAuth auth;
    private final SortedMap<Integer, MappedLun> mappedLuns = new TreeMap<>();

    NodeAcl(String initiator, Object lock) {
        this.initiator = initiator;
        this.auth = new ChapAuth(lock);
    }

    public String initiator() {
        return initiator;
    }

    public ChapAuth auth() {
        return auth;
    }

    /** By mapped LUN number; the live map: read it inside {@link TargetTree#read}. */
    public SortedMap<Integer, MappedLun> mappedLuns() {
        return mappedLuns;
    }

    /** The lowest mapped LUN number from {@code wanted} up that is free (rtslib's auto_add_mapped_luns). */
    int freeMappedLun(int wanted) {
        int m = wanted;
        if (mappedLuns.containsKey(m)) {
            m = 0;
            while (mappedLuns.containsKey(m)) {
                m++;
            }
        }
        return m;
    }
}
