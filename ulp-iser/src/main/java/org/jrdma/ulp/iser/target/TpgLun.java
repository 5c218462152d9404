package org.jrdma.ulp.iser.target;

/**
 * {@code tpg1/luns/lunN}: LUN {@code lun} of the TPG on a storage object. {@code readOnly} is the
 * configuration's read-only flag (ConfigAdmin); targetcli creates read-write LUNs and write-protects per
 * initiator through mapped LUNs.
 */
public record TpgLun(int lun, StorageObject storage, boolean readOnly) {
    /**
     * The highest LUN: LIO takes up to 65535, the target core's single-level LUN addressing up to 16383
     * ({@link org.jrdma.ulp.iser.scsi.LunTable#MAX_LUN}); rtslib's error text with that bound.
     */
    public static final int MAX_LUN = org.jrdma.ulp.iser.scsi.LunTable.MAX_LUN;
}
