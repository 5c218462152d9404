/**
 * The connection manager API: the RDMA CM ({@code include/rdma/rdma_cm.h}), what ULPs connect with.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.ib.cm;
