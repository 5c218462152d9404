/**
 * The SCSI target core (Linux {@code drivers/target}: {@code target_core_spc.c}, {@code target_core_sbc.c},
 * the ramdisk and fileio backstores): LUNs that execute CDBs against a backstore, with SPC-4/SBC-3 sense data
 * for every error. Knows nothing of iSCSI. Private to the bundle.
 */
package org.jrdma.ulp.iser.scsi;
