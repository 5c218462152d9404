/**
 * The iSER transport: one RC QP per iSCSI connection, connected by the RDMA CM in the TCP port space (Linux
 * {@code iser_verbs.c} / {@code isert_*} connection parts). PDUs travel as SENDs (iSER header + iSCSI PDU);
 * data moves by RDMA READ and WRITE against STags the initiator advertises. Private to the bundle.
 */
package org.jrdma.ulp.iser.conn;
