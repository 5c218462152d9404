package org.jrdma.ulp.iser.scsi;

import java.nio.ByteBuffer;

/**
 * One command in execution ({@code struct se_cmd} once parsed): the task, its CDB, the LUN it addresses (null
 * when the LUN does not exist: INQUIRY and REPORT LUNS still answer) and the table it came through.
 */
final class Command {
    final ScsiTask task;
    final Cdb cdb;
    final ScsiLun lun;
    final LunTable table;

    Command(ScsiTask task, Cdb cdb, ScsiLun lun, LunTable table) {
        this.task = task;
        this.cdb = cdb;
        this.lun = lun;
        this.table = table;
    }

    /** The EDTL in bytes (never negative). */
    int edtl() {
        return Math.max(0, task.expectedDataTransferLength());
    }

    /** How many data-in bytes fit: min(EDTL, dataIn capacity); 0 without a data-in buffer. */
    int dataInRoom() {
        ByteBuffer in = task.dataIn();
        return in == null ? 0 : Math.min(edtl(), in.capacity());
    }

    /** A view of the data-in buffer from position 0, limited to {@code n} bytes (n <= dataInRoom). */
    ByteBuffer dataIn(int n) {
        return task.dataIn().duplicate().clear().limit(n);
    }

    /** The data-out bytes as transferred (position 0, limit = bytes received); empty without data-out. */
    ByteBuffer dataOut() {
        ByteBuffer out = task.dataOut();
        return out == null ? ByteBuffer.allocate(0) : out.duplicate().rewind();
    }

    /**
     * Answers with a parameter-data response capped at the CDB's allocation length: copies what fits the
     * data-in buffer and returns the length the command produced, min(data, allocation length); the transport
     * truncates to EDTL and computes the residual from it.
     */
    int respond(byte[] data, int allocationLength) {
        int produced = Math.min(data.length, allocationLength);
        int n = Math.min(produced, dataInRoom());
        if (n > 0) {
            dataIn(n).put(data, 0, n);
        }
        return produced;
    }
}
