/**
 * Conventions shared by every jrdma Gogo command (ibv_devinfo, rdma, ibv_rc_pingpong, ...): how a
 * command reports failure and its exit status to the {@code ./jrdma} launcher.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.jrdma.ib.core.cli;
