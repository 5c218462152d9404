package org.jrdma.ulp.iser.target;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.IserTransportException;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.pdu.Ahs;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.RejectReason;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.scsi.ScsiResult;
import org.jrdma.ulp.iser.scsi.ScsiTask;

/**
 * One SCSI command's life over iSER (isert {@code isert_handle_scsi_cmd} .. {@code isert_put_response}):
 * a registered buffer for its data, a WRITE's immediate data copied in and the rest pulled by RDMA READ from the
 * write STag, the CDB run on the LUNs (on a worker thread when the LUN may block: fileio), a READ's data pushed by
 * RDMA WRITE to the read STag (never more than EDTL), then the SCSI Response, by SEND_WITH_INV of the
 * initiator's STag when it allows it. Each stage runs only if the task was not aborted; the buffer is freed
 * exactly once when the task ends, whichever way.
 */
final class ScsiTaskRunner {
    private static final Logger LOG = Logger.getLogger(ScsiTaskRunner.class.getName());
    private static final byte[] NO_DATA = new byte[0];
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);
    /** The largest transfer whose CDB runs on the completion thread when its LUN cannot block. */
    static final int INLINE_MAX = 64 << 10;
    private static final int SENSE_HARDWARE_ERROR = 0x04;
    private static final int SENSE_ILLEGAL_REQUEST = 0x05;
    private static final int ASC_INVALID_FIELD_IN_CDB = 0x24;

    private final TargetConnection conn;
    private final TargetSession session;
    private final ScsiCommand cmd;
    private final byte[] cdb;
    private final IserHeader iser;
    private final byte[] immediateData;
    private final Executor worker;
    private final TargetCounters counters;
    private final AtomicBoolean aborted = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private IserBuffer buffer;

    ScsiTaskRunner(TargetConnection conn, TargetSession session, IserPdu pdu, Executor worker,
            TargetCounters counters) {
        this.conn = conn;
        this.session = session;
        this.cmd = (ScsiCommand) pdu.pdu().header();
        this.cdb = cdb(cmd, pdu.pdu().ahs());
        this.iser = pdu.iser();
        this.immediateData = pdu.pdu().data();
        this.worker = worker;
        this.counters = counters;
    }

    /** The CDB: the BHS's 16 bytes, then an Extended CDB AHS's (RFC 7143 section 11.2.2.3: a reserved byte first). */
    private static byte[] cdb(ScsiCommand cmd, List<Ahs> ahs) {
        byte[] base = cmd.cdb();
        for (Ahs a : ahs) {
            if (a.type() == Ahs.EXTENDED_CDB && a.specific().length > 1) {
                byte[] ext = a.specific();
                byte[] all = Arrays.copyOf(base, base.length + ext.length - 1);
                System.arraycopy(ext, 1, all, base.length, ext.length - 1);
                return all;
            }
        }
        return base;
    }

    int itt() {
        return cmd.itt();
    }

    long lun() {
        return cmd.lun();
    }

    /**
     * ABORT TASK / LUN RESET / session end: no response will be sent. The stage in progress ends the task (an
     * RDMA op completes or is flushed, the CDB returns), so the buffer is never freed under a running op.
     */
    void abort() {
        aborted.set(true);
    }

    boolean aborted() {
        return aborted.get();
    }

    /** Starts the task: checks the transfer against the iSER header, then data-out, execute, data-in, status. */
    void start() {
        if (admitted() && staged()) {
            run();
        }
    }

    /** The transfer fits iSER and the ITT is free, else a Reject. */
    private boolean admitted() {
        String bad = transferError();
        if (bad != null) {
            LOG.fine(() -> "iSER target: Reject " + cmd + ": " + bad);
            conn.reject(RejectReason.PROTOCOL_ERROR, cmd);
            return false;
        }
        if (!session.start(this)) {
            conn.reject(RejectReason.TASK_IN_PROGRESS, cmd);
            return false;
        }
        return true;
    }

    /** A registered buffer of EDTL bytes, else the command ends with a status saying why. */
    private boolean staged() {
        int edtl = cmd.edtl();
        if (edtl > conn.connection().buffers().maxLength()) {
            // Past what the target can stage (VPD 0xb0 MAXIMUM TRANSFER LENGTH says as much): the CDB is refused.
            respond(failure(ScsiResult.CHECK_CONDITION, SENSE_ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB, 0));
            return false;
        }
        if (edtl > 0) {
            try {
                buffer = conn.connection().buffers().allocate(edtl);
            } catch (IserTransportException e) {
                respond(failure(ScsiResult.TASK_SET_FULL, 0, 0, 0)); // the pool is exhausted for now: retry
                return false;
            }
        }
        return true;
    }

    private void run() {
        CompletionStage<Void> out;
        try {
            out = dataOut();
        } catch (RuntimeException e) {
            out = CompletableFuture.failedFuture(e); // a transport that throws instead of failing the stage
        }
        // A CDB that may block runs on a worker, and so does a large copy (it would hold up the connection's other
        // completions: 1 MiB WRITEs were 10-20% slower inline); a small one on memory runs where it is.
        Executor ex = session.luns().mayBlock(cmd.lun()) || cmd.edtl() > INLINE_MAX ? worker : Runnable::run;
        out.thenApplyAsync(ignored -> execute(), ex)
                .whenComplete((result, error) -> {
                    if (error != null) {
                        // Aborted, or the connection is going down (an RDMA op failed or was flushed).
                        counters.increment(TargetCounter.ABORTED);
                        end();
                        return;
                    }
                    try {
                        respond(result, dataIn(result));
                    } catch (RuntimeException e) {
                        // A bug: a stage would swallow it and the buffer stay taken.
                        counters.increment(TargetCounter.INTERNAL_ERRORS);
                        end();
                        conn.close();
                    }
                });
    }

    /** Why the command's data transfer does not fit what iSER can do, or null. */
    private String transferError() {
        int edtl = cmd.edtl();
        int unsolicited = immediateData.length;
        if (edtl < 0) {
            return "EDTL over 2 GiB";
        }
        if (cmd.read() && cmd.write()) {
            return "bidirectional commands are not supported";
        }
        if (unsolicited > 0 && (!cmd.write() || unsolicited > edtl)) {
            return "immediate data without W or past EDTL";
        }
        SessionParams p = session.params();
        if (unsolicited > 0 && (!p.immediateData() || unsolicited > p.firstBurstLength())) {
            return "immediate data of " + unsolicited + " bytes with ImmediateData=" + p.immediateData()
                    + ", FirstBurstLength " + p.firstBurstLength();
        }
        if (cmd.write() && edtl > unsolicited && !iser.wsv()) {
            return "WRITE with solicited data but no write STag";
        }
        if (cmd.read() && edtl > 0 && !iser.rsv()) {
            return "READ without a read STag";
        }
        return null;
    }

    /** Immediate data first, the rest by RDMA READ (the initiator's write VA already points past it). */
    private CompletionStage<Void> dataOut() {
        if (!cmd.write() || buffer == null) {
            return CompletableFuture.completedFuture(null);
        }
        buffer.buffer().put(immediateData);
        int rest = cmd.edtl() - immediateData.length;
        if (rest == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return conn.connection().rdmaRead(buffer, immediateData.length, rest, iser.writeStag(), iser.writeVa());
    }

    private ScsiResult execute() {
        if (aborted.get()) {
            throw new IllegalStateException("aborted");
        }
        int edtl = cmd.edtl();
        ByteBuffer out = cmd.write() && buffer != null ? buffer.buffer().limit(edtl).slice() : ByteBuffer.allocate(0);
        ByteBuffer in = cmd.read() && buffer != null ? buffer.buffer().limit(edtl).slice() : null;
        ScsiResult result;
        try {
            result = session.luns().execute(new ScsiTask(cmd.lun(), cdb, edtl, out, in));
        } catch (RuntimeException e) {
            // The core promises sense for every error; should it throw anyway, the initiator gets one.
            result = failure(ScsiResult.CHECK_CONDITION, SENSE_HARDWARE_ERROR, 0x44, 0x00);
        }
        counters.increment(TargetCounter.COMMANDS);
        return result;
    }

    /**
     * A READ's data, min(dataInLength, EDTL) bytes, by RDMA WRITE to the read STag. The response does not wait for
     * it (isert_put_datain posts both at once): on RC the SEND posted after the WRITE is delivered only after the
     * WRITE's data is placed, and a failed WRITE flushes the SEND.
     */
    private CompletionStage<Void> dataIn(ScsiResult result) {
        int n = cmd.read() ? Math.min(Math.max(result.dataInLength(), 0), cmd.edtl()) : 0;
        if (n == 0 || aborted.get()) {
            return DONE;
        }
        return conn.connection().rdmaWriteBeforeSend(buffer, 0, n, iser.readStag(), iser.readVa());
    }

    private void respond(ScsiResult result) {
        respond(result, DONE);
    }

    /** The SCSI Response; the task ends (its buffer freed) once it and {@code data}, the data-in WRITE, are done. */
    private void respond(ScsiResult result, CompletionStage<Void> data) {
        if (aborted.get()) {
            counters.increment(TargetCounter.ABORTED);
            data.whenComplete((v, e) -> end());
            return;
        }
        int edtl = cmd.edtl();
        int dataIn = cmd.read() ? Math.max(result.dataInLength(), 0) : 0;
        int sent = Math.min(dataIn, edtl);
        int taken = cmd.write() ? edtl : 0;
        boolean underflow = cmd.read() && dataIn < edtl;
        boolean overflow = cmd.read() && dataIn > edtl;
        int residual = underflow ? edtl - dataIn : overflow ? dataIn - edtl : 0;
        if (result.status() == ScsiResult.GOOD || result.status() == ScsiResult.CHECK_CONDITION) {
            session.executed(sent, taken);
            counters.add(TargetCounter.READ_BYTES, sent);
            counters.add(TargetCounter.WRITE_BYTES, taken);
        }
        CompletionStage<Void> status = conn.sendStatus(sn -> new ScsiResponse(false, false, overflow, underflow, 0,
                result.status(), cmd.itt(), 0, sn, 0, 0, residual), senseSegment(result.sense()), invalidateStag());
        if (data == DONE) {
            status.whenComplete((v, e) -> end());
            return;
        }
        data.whenComplete((v, e) -> {
            if (e != null) {
                counters.increment(TargetCounter.ABORTED); // the connection is going down; the status is flushed
            }
            status.whenComplete((v2, e2) -> end());
        });
    }

    /** The STag isert invalidates with the response: the read STag, else the write STag (0: plain SEND). */
    private int invalidateStag() {
        if (!conn.connection().peerAcceptsSendWithInvalidate()) {
            return 0;
        }
        return iser.rsv() ? iser.readStag() : iser.wsv() ? iser.writeStag() : 0;
    }

    /** RFC 7143 section 11.4.7.2: SenseLength (2 bytes, big-endian) then the sense bytes. */
    static byte[] senseSegment(byte[] sense) {
        if (sense.length == 0) {
            return NO_DATA;
        }
        byte[] data = new byte[2 + sense.length];
        data[0] = (byte) (sense.length >> 8);
        data[1] = (byte) sense.length;
        System.arraycopy(sense, 0, data, 2, sense.length);
        return data;
    }

    /** A result with fixed-format sense (SPC-4 4.5.3) when a key is given. */
    static ScsiResult failure(int status, int key, int asc, int ascq) {
        if (key == 0) {
            return new ScsiResult(status, null, 0);
        }
        byte[] sense = new byte[18];
        sense[0] = 0x70;
        sense[2] = (byte) key;
        sense[7] = 10;
        sense[12] = (byte) asc;
        sense[13] = (byte) ascq;
        return new ScsiResult(status, sense, 0);
    }

    /** Frees the buffer and forgets the task, once. */
    private void end() {
        if (ended.compareAndSet(false, true)) {
            IserBuffer b = buffer;
            if (b != null) {
                b.close();
            }
            session.finished(this);
        }
    }
}
