/**
 * The runtime every jrdma tool shares (ibv_devinfo, rdma, ibv_*_pingpong, rping, ib_*_bw/lat), once:
 * how a command reports failure and its exit status to the {@code ./jrdma} launcher ({@link
 * CommandFailure}, {@link ToolMain}), {@code exit()} from anywhere in a run ({@link Exit}),
 * busy-polling without starving the device ({@link Polling}), the tool's {@code IbClient} and device
 * lookup ({@link ToolClient}), and the libc behaviours the C tools' options and output depend on
 * ({@link Getopt}, {@link CNum}, {@link Strerror}, {@link Printf}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package org.jrdma.ib.core.cli;
