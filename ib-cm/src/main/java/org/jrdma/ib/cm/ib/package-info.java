/**
 * The IB CM ({@code include/rdma/ib_cm.h}): communication ids, listening by service ID, the REQ / REP / RTU /
 * REJ / MRA / DREQ / DREP and SIDR exchanges with private data, and the QP attributes of a connection
 * ({@code ib_cm_init_qp_attr}). The RDMA CM is one consumer of it; IPoIB connected mode is another.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.ib.cm.ib;
