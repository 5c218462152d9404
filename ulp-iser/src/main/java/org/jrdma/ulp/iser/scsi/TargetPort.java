package org.jrdma.ulp.iser.scsi;

/**
 * The SCSI target port a {@link LunTable} is seen through, for the port designators of VPD page 0x83 (LIO
 * reports them per {@code se_lun}): the iSCSI target name, the TPGT and the relative target port identifier.
 */
public record TargetPort(String targetName, int tpgt, int relativePortId) {
    public TargetPort {
        if (targetName == null || targetName.isEmpty() || tpgt < 0 || tpgt > 0xffff || relativePortId < 1
                || relativePortId > 0xffff) {
            throw new IllegalArgumentException("bad target port " + targetName + ",t," + tpgt + " rtpi "
                    + relativePortId);
        }
    }

    /** The SCSI name string of the port (SPC-4 7.8.6.11 with iSCSI: {@code <name>,t,0x<tpgt>}). */
    public String scsiName() {
        return targetName + ",t,0x" + String.format("%04x", tpgt);
    }
}
