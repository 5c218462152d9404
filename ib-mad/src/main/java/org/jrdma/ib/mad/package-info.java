/**
 * The MAD layer API ({@code include/rdma/ib_mad.h}): management datagrams on the special QPs. A
 * {@link MadService} opens GSI QP1 on every port of every device (and SMI QP0 on InfiniBand ports) as
 * devices come and go; clients register {@link MadAgent}s by management class, class version and
 * methods ({@code ib_register_mad_agent}), send {@link MadSend}s with a response timeout and retries
 * ({@code ib_post_send_mad}), and receive requests and matched responses through their
 * {@link MadHandler}. {@link Mad} reads and writes the 24-byte common header.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.jrdma.ib.mad;
