/**
 * The iSER target (Linux LIO {@code iscsi_target_mod} + {@code ib_isert}): portals that accept iSER
 * connections, login, sessions in full feature phase that run SCSI commands on the target core and move data
 * by RDMA; the configuration tree that targetcli and ConfigAdmin build. Private to the bundle.
 */
package org.jrdma.ulp.iser.target;
