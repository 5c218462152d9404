package org.jrdma.ulp.iser.initiator;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.pdu.TaskAttribute;

/**
 * One SCSI command of a session ({@code struct iscsi_task} + {@code struct iscsi_iser_task}). Its data lives in a
 * registered buffer of the connection while it is on the wire: a WRITE copies the caller's bytes in (the first
 * ones go as immediate data, the target RDMA READs the rest at the write STag), a READ advertises the read STag,
 * the target RDMA WRITEs, and the bytes are copied out to the caller's buffer when the SCSI Response arrives.
 * A task on the caller's {@link RegisteredMemory} advertises a window of it instead and copies nothing.
 * After a connection loss the task is prepared again on the new connection (new ITT, CmdSN and buffer).
 */
final class IserTask {
    private final int lun;
    private final byte[] cdb;
    private final boolean read;
    private final boolean write;
    private final int edtl;
    /** The caller's bytes: the source of a WRITE, where a READ lands; position = first byte. */
    private final ByteBuffer user;
    /** Whether less data than EDTL is a failure (block I/O) or just less data (INQUIRY, REPORT LUNS). */
    private final boolean exact;
    /** Set when the data lives in the caller's registered memory ({@link #user} a window of it): no copies. */
    private RegisteredMemory lent;
    private int lentOffset;
    /**
     * Whether this try advertises the lent memory itself: not when the target may answer with SEND_WITH_INV (it
     * would invalidate the memory's long-lived rkey), then the task copies through a pool buffer as for any caller.
     */
    private boolean zeroCopy;
    final CompletableFuture<Integer> done = new CompletableFuture<>();
    private IserBuffer buffer;
    private int transferred;
    int itt;
    /** When the command went on the wire (System.nanoTime). */
    long sentAt;
    /** Times this command timed out and was re-issued after recovery. */
    int timeouts;
    /** The CmdSN it went out with (an ABORT TASK's RefCmdSN). */
    int cmdSn;

    private IserTask(int lun, byte[] cdb, boolean read, boolean write, ByteBuffer user, boolean exact) {
        this.lun = lun;
        this.cdb = cdb;
        this.read = read;
        this.write = write;
        this.edtl = user == null ? 0 : user.remaining();
        this.user = user;
        this.exact = exact;
    }

    int lun() {
        return lun;
    }

    static IserTask dataIn(int lun, byte[] cdb, ByteBuffer dst, boolean exact) {
        return new IserTask(lun, cdb, true, false, dst.duplicate(), exact);
    }

    static IserTask dataOut(int lun, byte[] cdb, ByteBuffer src) {
        return new IserTask(lun, cdb, false, true, src.duplicate(), true);
    }

    /**
     * A READ ({@code read}) or WRITE of {@code length} bytes at {@code offset} of registered memory: the target moves
     * them in and out of it directly. The memory counts the task in flight until the caller calls
     * {@link RegisteredMemory#end} (before the caller's own future completes).
     */
    static IserTask registered(int lun, byte[] cdb, boolean read, RegisteredMemory m, int offset, long length) {
        IserTask t = new IserTask(lun, cdb, read, !read, m.begin(offset, length), true);
        t.lent = m;
        t.lentOffset = offset;
        return t;
    }

    static IserTask noData(int lun, byte[] cdb) {
        return new IserTask(lun, cdb, false, false, null, true);
    }

    /** The data-in or data-out bytes (EDTL). */
    int dataLength() {
        return edtl;
    }

    String describe() {
        return ScsiCdb.name(cdb) + " LUN " + lun;
    }

    /**
     * Takes a registered buffer of {@code conn} and fills it (a WRITE's bytes); before a CmdSN is taken, so a
     * pool that stays empty fails this task alone and leaves no hole in the CmdSN sequence.
     *
     * @throws org.jrdma.ulp.iser.conn.IserTransportException when the pool cannot serve the task
     */
    void attach(IserConnection conn) {
        release();
        zeroCopy = lent != null && !conn.peerAcceptsSendWithInvalidate();
        if (zeroCopy) {
            buffer = lent.window(conn, lentOffset, edtl);
        } else if (edtl > 0) {
            buffer = conn.buffers().allocate(edtl);
            if (write) {
                buffer.buffer().put(user.duplicate());
            }
        }
    }

    /** The SCSI Command PDU, with the buffer {@link #attach} took. */
    IserPdu command(SessionParams params, int itt, InitiatorSn sn) {
        this.itt = itt;
        this.cmdSn = sn.cmdSn();
        this.sentAt = System.nanoTime();
        byte[] immediate = new byte[0];
        IserHeader iser = IserHeader.CONTROL;
        if (write && edtl > 0) {
            int imm = params.immediateData()
                    ? Math.min(edtl, Math.min(params.firstBurstLength(), params.targetRecvDataSegmentLength()))
                    : 0;
            immediate = new byte[imm];
            buffer.buffer().get(immediate);
            // the write VA points past the immediate data, as ib_iser's (the target reads the rest there)
            iser = imm < edtl ? new IserHeader(true, false, buffer.rkey(), buffer.va() + imm, 0, 0) : iser;
        } else if (read && edtl > 0) {
            iser = new IserHeader(false, true, 0, 0, buffer.rkey(), buffer.va());
        }
        ScsiCommand cmd = new ScsiCommand(false, true, read, write, TaskAttribute.SIMPLE, ScsiCdb.lunField(lun),
                itt, edtl, sn, cdb);
        return new IserPdu(iser, new IscsiPdu(cmd, immediate));
    }

    /**
     * Ends the task with the target's answer: null on success (a READ's bytes copied out), else the failure in
     * words. The caller completes {@link #done}, outside its lock.
     */
    IserIoException complete(ScsiResponse r, byte[] data) {
        try {
            if (r.response() != 0) {
                return new IserIoException(describe() + ": target failure (iSCSI response 0x"
                        + Integer.toHexString(r.response()) + ")", r.status(), 0, 0, 0);
            }
            if (r.status() != ScsiResponse.GOOD) {
                ScsiSense s = ScsiSense.parse(data);
                String words = ScsiSense.statusName(r.status())
                        + (r.status() == ScsiResponse.CHECK_CONDITION ? ", " + s.describe() : "");
                return new IserIoException(describe() + ": " + words, r.status(), s.senseKey(), s.asc(), s.ascq());
            }
            int moved = r.underflow() ? Math.max(0, edtl - r.residual()) : edtl;
            if (exact && moved != edtl || r.overflow() && exact) {
                return new IserIoException(describe() + ": short transfer, " + moved + " of " + edtl + " bytes");
            }
            if (read && moved > 0 && !zeroCopy) {
                user.put(buffer.buffer().limit(moved));
            }
            transferred = moved;
            return null;
        } finally {
            release();
        }
    }

    int transferred() {
        return transferred;
    }

    /** Returns the registered buffer (the connection is gone or the task ended). */
    void release() {
        if (buffer != null) {
            buffer.close();
            buffer = null;
        }
    }
}
