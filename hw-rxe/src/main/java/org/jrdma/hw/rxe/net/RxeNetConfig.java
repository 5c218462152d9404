package org.jrdma.hw.rxe.net;

/**
 * The switches of a {@link NettyWire}: which of its ways a packet takes in and out. {@link #SYSTEM} reads the
 * {@code -Djrdma.rxe.net.*} properties once, when this class is loaded; a wire is given one of these and never
 * reads a property itself, so a test constructs the configuration it needs ({@code SYSTEM.withGso(false)}) instead
 * of flipping a static.
 *
 * @param batch {@code jrdma.rxe.net.batch} (default true): sends that go through the event loop are queued per
 *        channel and written in batches by one task; false: one writeAndFlush per packet. On the 2-core build host
 *        both measured 8..16 MiB/s for RC WRITE, batching slightly ahead.
 * @param direct {@code jrdma.rxe.net.direct} (default true): epoll sends leave from the sending thread
 *        (sendmmsg/sendto on the channel's socket) when nothing of the channel waits in the event loop; false:
 *        every packet through the event loop.
 * @param busyPoll {@code jrdma.rxe.net.busyPoll} (epoll only, default false): the reading thread spins instead of
 *        sleeping in {@code epoll_wait}, as Linux's {@code net.core.busy_poll} does for a socket: a packet is
 *        picked up without a wakeup, at the price of one core per device kept busy.
 * @param recvThread {@code jrdma.rxe.net.recvThread} (epoll, default true): a thread per wire reads the sockets
 *        ({@link RecvLoop}); false: the event loop reads (recvmmsg batches).
 * @param recvBatch {@code jrdma.rxe.net.recvmmsg} (epoll event loop reads, default 8): datagrams one recvmmsg(2)
 *        reads into one buffer; 1: one recvmsg per datagram. A round trip's ACK and answer arrive together; one
 *        read takes both.
 * @param gso {@code jrdma.rxe.net.gso} (epoll, default true): what one pass of a QP's roles sends is held back
 *        ({@link Cork}) and leaves at the end of the pass by one sendmmsg(2), each run of equal-size packets to one
 *        destination as one datagram with {@code UDP_SEGMENT} (the kernel cuts it into exactly those packets
 *        again); false: one datagram per packet.
 * @param gro {@code jrdma.rxe.net.gro} (epoll, receive thread, default true): the sockets get {@code UDP_GRO} and
 *        the receive thread reads with recvmsg(2), so a GSO datagram (or a run the kernel's GRO merged) arrives in
 *        one read with its segment size and is cut into its packets; false: one datagram per recvfrom(2).
 * @param acksWithPass {@code jrdma.rxe.net.acksWithPass} (receive thread, GSO, default false): a pass of a QP's
 *        roles that sends while a datagram is handled takes the ACKs held so far along in its sendmmsg, after its
 *        own packets. Off: the chained RC pingpong was slower with it (hw-rxe/NOTES.md, "Held ACKs by
 *        sendmmsg"); the ACKs then wait for the end of the datagram.
 */
public record RxeNetConfig(boolean batch, boolean direct, boolean busyPoll, boolean recvThread, int recvBatch,
        boolean gso, boolean gro, boolean acksWithPass) {

    /** The switches this JVM was started with, read once. */
    public static final RxeNetConfig SYSTEM = fromSystemProperties();

    /** Reads the {@code -Djrdma.rxe.net.*} properties (each default as documented above). */
    public static RxeNetConfig fromSystemProperties() {
        return new RxeNetConfig(on("batch"), on("direct"), Boolean.getBoolean("jrdma.rxe.net.busyPoll"),
                on("recvThread"), Integer.getInteger("jrdma.rxe.net.recvmmsg", 8), on("gso"), on("gro"),
                Boolean.getBoolean("jrdma.rxe.net.acksWithPass"));
    }

    /** A switch that is on unless set to {@code false}. */
    private static boolean on(String name) {
        return !"false".equals(System.getProperty("jrdma.rxe.net." + name));
    }

    public RxeNetConfig withRecvThread(boolean on) {
        return new RxeNetConfig(batch, direct, busyPoll, on, recvBatch, gso, gro, acksWithPass);
    }

    public RxeNetConfig withGso(boolean on) {
        return new RxeNetConfig(batch, direct, busyPoll, recvThread, recvBatch, on, gro, acksWithPass);
    }

    public RxeNetConfig withGro(boolean on) {
        return new RxeNetConfig(batch, direct, busyPoll, recvThread, recvBatch, gso, on, acksWithPass);
    }

    public RxeNetConfig withAcksWithPass(boolean on) {
        return new RxeNetConfig(batch, direct, busyPoll, recvThread, recvBatch, gso, gro, on);
    }
}
