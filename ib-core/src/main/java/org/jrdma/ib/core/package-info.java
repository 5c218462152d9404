/**
 * The jrdma verbs API, what ULPs program against: the device and client registry ({@link IbCore},
 * {@link IbDevice}, {@link IbClient}) and the kernel verbs of Linux {@code include/rdma/ib_verbs.h}
 * (PD, MR, MW, CQ, QP, SRQ, AH, async events). Every call is validated by ib-core before it reaches
 * the driver, as {@code drivers/infiniband/core/verbs.c} does.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package org.jrdma.ib.core;
