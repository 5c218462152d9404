package org.jrdma.ulp.iser;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One logged-in iSER session (a Linux {@code session<SID>}: open-iscsi's node login plus the sd disks of its
 * LUNs). I/O is asynchronous; commands beyond the target's command window or the session's queue depth wait
 * in order. After a connection loss the session reinstates itself (same ISID) and re-issues what was in
 * flight; after the replacement timeout pending and new I/O fail with an {@link IserIoException}.
 */
public interface IserSession extends AutoCloseable {

    /** The kernel's {@code iscsi_session_state} names. */
    enum State {
        /** Full feature phase: I/O flows. */
        LOGGED_IN,
        /** The connection is gone; reinstating (I/O waits until the replacement timeout, then fails). */
        FAILED,
        /** Logged out or closed. */
        FREE
    }

    String targetName();

    InetSocketAddress portal();

    /** The target portal group tag the login answered (iscsiadm prints it after the portal). */
    int portalGroupTag();

    /** The session id, as {@code iscsiadm -m session} prints it in brackets (1, 2, ...). */
    int sid();

    State state();

    /** The LUNs REPORT LUNS listed that are direct-access block devices, ascending. */
    List<Integer> luns();

    /** The LUN's capacity in logical blocks (READ CAPACITY(16): last LBA + 1). */
    long capacity(int lun);

    /** The LUN's logical block length in bytes. */
    int blockSize(int lun);

    /**
     * READ(16) of {@code blocks} blocks at {@code lba} into {@code dst} (from its position; the position
     * advances by the bytes read once the future completes).
     */
    CompletableFuture<Void> read(int lun, long lba, int blocks, ByteBuffer dst);

    /** WRITE(16) of {@code blocks} blocks at {@code lba} from {@code src} (from its position, which advances). */
    CompletableFuture<Void> write(int lun, long lba, int blocks, ByteBuffer src);

    /**
     * READ(16) of {@code blocks} blocks at {@code lba} into {@code dst} from byte {@code offset}, with no copy: the
     * target's RDMA WRITE places the bytes there.
     *
     * @throws IllegalArgumentException when the blocks do not fit from {@code offset}, or {@code dst} is not this
     *                                  session's
     * @throws IllegalStateException    when {@code dst} is closed
     */
    CompletableFuture<Void> read(int lun, long lba, int blocks, IserIoBuffer dst, int offset);

    /** WRITE(16) of {@code blocks} blocks at {@code lba} from {@code src} at byte {@code offset}, with no copy. */
    CompletableFuture<Void> write(int lun, long lba, int blocks, IserIoBuffer src, int offset);

    /**
     * Lends {@code length} bytes of zeroed direct memory, registered for I/O with no copy (close it when done).
     *
     * @throws IllegalArgumentException when {@code length} is not positive
     */
    IserIoBuffer allocateBuffer(int length);

    /**
     * Registers the caller's direct {@code memory} (position 0 to capacity) for I/O with no copy; the caller keeps
     * it alive until {@link IserIoBuffer#close()}. Meant for memory reused over many I/Os (a registration costs
     * more than a copy of a few KiB).
     *
     * @throws IllegalArgumentException when {@code memory} is not direct or is read-only
     */
    IserIoBuffer registerBuffer(ByteBuffer memory);

    /** SYNCHRONIZE CACHE(10) of the whole LUN. */
    CompletableFuture<Void> flush(int lun);

    /** The most commands this session has outstanding at once (open-iscsi's {@code node.session.cmds_max}). */
    int queueDepth();

    /** Logout (reason: close the session); the connection closes once the target answers. */
    CompletionStage<Void> logout();

    /** Logs out and waits for it (bounded by the logout timeout); never throws. */
    @Override
    void close();
}
