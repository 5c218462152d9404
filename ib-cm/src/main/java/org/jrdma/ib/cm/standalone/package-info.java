/**
 * The RDMA CM outside OSGi ({@link org.jrdma.ib.cm.standalone.RdmaCmStack}): the same {@code RdmaCm} the
 * container registers as a service, over a MAD layer, SA client and IB CM of its own, on a core the caller
 * owns (a plain JUnit test of a ULP, an embedded use).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.ib.cm.standalone;
