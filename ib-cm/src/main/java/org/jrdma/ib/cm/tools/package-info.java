/**
 * rdma-core's {@code librdmacm/examples/rping.c} on the RDMA CM API ({@link org.jrdma.ib.cm.RdmaCm}) and
 * the ib-core verbs: a plain class, usable and tested without OSGi ({@link org.jrdma.ib.cm.tools.Rping#run}).
 * Private to the bundle.
 */
package org.jrdma.ib.cm.tools;
