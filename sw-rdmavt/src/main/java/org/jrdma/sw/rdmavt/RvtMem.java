package org.jrdma.sw.rdmavt;

/** What an lkey or rkey can name: an MR or an MW. */
public abstract class RvtMem {
    /** {@code enum rxe_mr_state}: FREE keys name nothing usable, VALID ones can be used. */
    public enum State {
        INVALID, FREE, VALID
    }

    volatile State state;

    public State state() {
        return state;
    }

    /** The current key (index and key byte). */
    public abstract int key();

    public abstract RvtPd pd();
}
