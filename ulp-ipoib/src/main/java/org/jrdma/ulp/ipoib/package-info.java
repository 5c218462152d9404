/**
 * IP over InfiniBand for JVM users (Linux {@code drivers/infiniband/ulp/ipoib}, RFC 4391/4392): one interface per
 * InfiniBand port ({@code ib0}, {@code ib1}, ...), IP packets in and out through {@link IpoibInterface}, the list of
 * interfaces as the {@link IpoibInterfaces} service. Only JDK types: the verbs, SA and wire codecs stay private.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package org.jrdma.ulp.ipoib;
