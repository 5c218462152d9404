package org.jrdma.ib.mad.sa;

/**
 * An SA query that failed: the SA answered with a non-zero MAD status ({@link #madStatus()}: the
 * generic bits 0-4 and the SA's class-specific code in bits 8-14, e.g. {@link #ERR_NO_RECORDS}), or no
 * answer came (madStatus -1, {@link #errno()} ETIMEDOUT), or the query was cancelled (EINTR). {@link
 * #errno()} is what Linux's {@code sa_query.c} hands its callbacks: -EINVAL for a status, as
 * {@code recv_handler} does.
 */
public final class SaException extends Exception {
    private static final long serialVersionUID = 1L;
    /** SA status codes (in the MAD status field: {@code IB_SA_MAD_STATUS_*}). */
    public static final int ERR_NO_RESOURCES = 0x0100;
    public static final int ERR_REQ_INVALID = 0x0200;
    public static final int ERR_NO_RECORDS = 0x0300;
    public static final int ERR_TOO_MANY_RECORDS = 0x0400;
    public static final int ERR_REQ_INVALID_GID = 0x0500;
    public static final int ERR_REQ_INSUFFICIENT_COMPONENTS = 0x0600;
    public static final int ERR_REQ_DENIED = 0x0700;

    private final int madStatus;
    private final int errno;

    public SaException(int madStatus, int errno, String message) {
        super(message);
        this.madStatus = madStatus;
        this.errno = errno;
    }

    /** The status of the SA's answer, or -1 if there was none. */
    public int madStatus() {
        return madStatus;
    }

    /** A negative errno: -EINVAL (the SA said no), -ETIMEDOUT, -EINTR, -ENODEV. */
    public int errno() {
        return errno;
    }
}
