package org.jrdma.ib.core;

/**
 * A verb refused or failed: carries the errno the kernel would return and a message that says
 * which argument or state was wrong.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Errno errno;

    public VerbsException(Errno errno, String message) {
        super(message);
        this.errno = errno;
    }

    public VerbsException(Errno errno, String message, Throwable cause) {
        super(message, cause);
        this.errno = errno;
    }

    public Errno errno() {
        return errno;
    }

    @Override
    public String getMessage() {
        return super.getMessage() + " (" + errno + ")";
    }
}
