package org.jrdma.ulp.iser;

import java.io.IOException;

/**
 * An I/O or session failure, in words: a SCSI status with its sense key and additional sense code (e.g.
 * "CHECK CONDITION, ILLEGAL REQUEST: LOGICAL BLOCK ADDRESS OUT OF RANGE"), a login refused, a session that
 * failed (replacement timeout expired) or a transport error. The numbers are kept for programs.
 */
public class IserIoException extends IOException {
    private static final long serialVersionUID = 1L;
    /** {@link #status()} of a failure that is not a SCSI status (login, transport, session). */
    public static final int NO_STATUS = -1;

    private final int status;
    private final int senseKey;
    private final int asc;
    private final int ascq;

    /** A failure without SCSI status. */
    public IserIoException(String message) {
        this(message, NO_STATUS, 0, 0, 0);
    }

    public IserIoException(String message, Throwable cause) {
        super(message, cause);
        this.status = NO_STATUS;
        this.senseKey = 0;
        this.asc = 0;
        this.ascq = 0;
    }

    public IserIoException(String message, int status, int senseKey, int asc, int ascq) {
        super(message);
        this.status = status;
        this.senseKey = senseKey;
        this.asc = asc;
        this.ascq = ascq;
    }

    /** The SAM status byte (0x02 CHECK CONDITION, 0x08 BUSY, ...), or {@link #NO_STATUS}. */
    public int status() {
        return status;
    }

    /** The sense key (5 = ILLEGAL REQUEST, ...), 0 without sense data. */
    public int senseKey() {
        return senseKey;
    }

    public int asc() {
        return asc;
    }

    public int ascq() {
        return ascq;
    }
}
