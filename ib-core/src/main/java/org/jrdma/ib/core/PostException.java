package org.jrdma.ib.core;

/**
 * A post to a send or receive queue failed: {@link #badWr()} is the first work request that was
 * not posted (the kernel's {@code bad_wr}); every request before it in the chain was posted.
 */
public class PostException extends VerbsException {
    private static final long serialVersionUID = 1L;
    private final transient Object badWr;

    public PostException(Errno errno, String message, Object badWr) {
        super(errno, message);
        this.badWr = badWr;
    }

    /** The failing {@link SendWr} or {@link RecvWr}. */
    public Object badWr() {
        return badWr;
    }

    public SendWr badSendWr() {
        return (SendWr) badWr;
    }

    public RecvWr badRecvWr() {
        return (RecvWr) badWr;
    }
}
