package org.jrdma.sw.rdmavt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.VerbsException;

/**
 * A device's multicast groups and the QPs attached to each (rdmavt's {@code mcast.c}: {@code rvt_mcast} per MGID
 * with its {@code qp_list}; rxe's {@code rxe_mcg}/{@code rxe_mca}). The errors are the ones both Linux drivers
 * return: attaching a QP twice is no error and no second copy; {@code max_mcast_grp}, {@code max_mcast_qp_attach}
 * and {@code max_total_mcast_qp_attach} give ENOMEM; detaching a QP that is not attached (or from a group that does
 * not exist) gives EINVAL; with {@code byLid}, an MGID already in the table under another MLID gives EINVAL
 * (rdmavt; rxe ignores the MLID, IBA A17.5.6).
 * <p>Writes are serialized on the table; the receive path reads the groups' QP arrays without locks (copy on write,
 * as rdmavt's RCU lists).
 */
public final class RvtMcastTable {
    /** What a driver does when a group appears or goes (rxe: {@code dev_mc_add}/{@code dev_mc_del}). */
    public interface Listener {
        void groupAdded(Gid mgid);

        void groupRemoved(Gid mgid);
    }

    /** One group: its MGID and MLID and the QPs attached, as an array readers never see change. */
    public static final class Group {
        public final Gid mgid;
        public final int mlid;
        volatile RvtQp[] qps = new RvtQp[0];

        Group(Gid mgid, int mlid) {
            this.mgid = mgid;
            this.mlid = mlid;
        }

        /** The attached QPs, to deliver one copy each; the caller must not change the array. */
        public RvtQp[] qps() {
            return qps;
        }
    }

    private static final RvtQp[] NONE = new RvtQp[0];

    private final int maxGroups;
    private final int maxQpPerGroup;
    private final int maxTotal;
    private final boolean byLid;
    private final Listener listener;
    private final Map<Gid, Group> groups = new ConcurrentHashMap<>();
    private int attached;

    public RvtMcastTable(DeviceAttr attr, boolean byLid, Listener listener) {
        this.maxGroups = attr.maxMcastGrp();
        this.maxQpPerGroup = attr.maxMcastQpAttach();
        this.maxTotal = attr.maxTotalMcastQpAttach();
        this.byLid = byLid;
        this.listener = listener;
    }

    /** {@code rvt_attach_mcast}. */
    public synchronized void attach(RvtQp qp, Gid mgid, int mlid) {
        if (maxGroups == 0) {
            throw new VerbsException(Errno.EINVAL, "attach_mcast: the device has no multicast groups");
        }
        Group g = groups.get(mgid);
        if (g != null && byLid && g.mlid != mlid) {
            throw new VerbsException(Errno.EINVAL, "attach_mcast: " + mgid.toCompressedString() + " has MLID 0x"
                    + Integer.toHexString(g.mlid) + ", not 0x" + Integer.toHexString(mlid));
        }
        if (g != null && Arrays.asList(g.qps).contains(qp)) {
            return; // attached already: no error, no second copy
        }
        if (g == null && groups.size() >= maxGroups) {
            throw new VerbsException(Errno.ENOMEM, "attach_mcast: max_mcast_grp " + maxGroups + " reached");
        }
        if (attached >= maxTotal || g != null && g.qps.length >= maxQpPerGroup) {
            throw new VerbsException(Errno.ENOMEM, "attach_mcast: " + (attached >= maxTotal
                    ? "max_total_mcast_qp_attach " + maxTotal : "max_mcast_qp_attach " + maxQpPerGroup) + " reached");
        }
        if (g == null) {
            listener.groupAdded(mgid); // first: a failure leaves nothing behind
            g = new Group(mgid, mlid);
            groups.put(mgid, g);
        }
        RvtQp[] next = Arrays.copyOf(g.qps, g.qps.length + 1);
        next[next.length - 1] = qp;
        g.qps = next;
        attached++;
    }

    /** {@code rvt_detach_mcast}. */
    public synchronized void detach(RvtQp qp, Gid mgid, int mlid) {
        Group g = groups.get(mgid);
        if (g == null || byLid && g.mlid != mlid || !remove(g, qp)) {
            throw new VerbsException(Errno.EINVAL, "detach_mcast: QP " + qp.qpn + " is not attached to "
                    + mgid.toCompressedString() + (byLid ? " MLID 0x" + Integer.toHexString(mlid) : ""));
        }
    }

    /** Detaches {@code qp} from every group (the QP is being destroyed, as uverbs detaches before destroy). */
    public synchronized void detachAll(RvtQp qp) {
        for (Group g : new ArrayList<>(groups.values())) {
            remove(g, qp);
        }
    }

    private boolean remove(Group g, RvtQp qp) {
        List<RvtQp> l = new ArrayList<>(Arrays.asList(g.qps));
        if (!l.remove(qp)) {
            return false;
        }
        g.qps = l.toArray(NONE);
        attached--;
        if (l.isEmpty()) {
            groups.remove(g.mgid);
            listener.groupRemoved(g.mgid);
        }
        return true;
    }

    /** The group of {@code mgid}, or null: the receive path's lookup. */
    public Group group(Gid mgid) {
        return groups.get(mgid);
    }

    /** The QPs attached to groups with MLID {@code mlid} (on an IB fabric one MLID names one group). */
    public RvtQp[] qpsByMlid(int mlid) {
        for (Group g : groups.values()) {
            if (g.mlid == mlid) {
                return g.qps;
            }
        }
        return NONE;
    }

    /** The MGIDs in the table. */
    public List<Gid> mgids() {
        return List.copyOf(groups.keySet());
    }
}
