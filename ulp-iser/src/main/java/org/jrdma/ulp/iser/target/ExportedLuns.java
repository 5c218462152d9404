package org.jrdma.ulp.iser.target;

import java.util.HashMap;
import java.util.Map;
import org.jrdma.ulp.iser.scsi.ScsiLun;

/**
 * The {@link ScsiLun}s of a TPG's LUNs, kept across logins so their counters (LIO's scsi_lu num_cmds and bytes)
 * add up over sessions: one read-write and one read-only per TPG LUN, since the flag is part of a ScsiLun. A
 * LUN deleted (or put on another storage object) starts again. Guarded by the tree's state lock.
 */
final class ExportedLuns {
    private final Map<Integer, ScsiLun[]> byLun = new HashMap<>();

    /** The ScsiLun exporting TPG LUN {@code lun}, read-only or not. */
    ScsiLun get(TpgLun lun, boolean readOnly) {
        ScsiLun[] pair = byLun.computeIfAbsent(lun.lun(), n -> new ScsiLun[2]);
        int i = readOnly ? 1 : 0;
        if (pair[i] == null || pair[i].backstore() != lun.storage().backstore()) {
            pair[i] = new ScsiLun(lun.storage().backstore(), readOnly);
        }
        return pair[i];
    }

    /** The read-write ScsiLun of TPG LUN {@code lun} if an initiator has used it, for its counters. */
    ScsiLun readWrite(int lun) {
        ScsiLun[] pair = byLun.get(lun);
        return pair == null ? null : pair[0];
    }

    void drop(int lun) {
        byLun.remove(lun);
    }
}
