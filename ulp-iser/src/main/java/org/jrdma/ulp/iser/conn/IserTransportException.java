package org.jrdma.ulp.iser.conn;

/** A connection-level failure: a work completion in error, a refused connect, an exhausted pool. */
public class IserTransportException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public IserTransportException(String message) {
        super(message);
    }

    public IserTransportException(String message, Throwable cause) {
        super(message, cause);
    }
}
