package org.jrdma.sw.rdmavt;

/**
 * A receive an engine took from a receive queue ({@link RvtQp#takeRecv}) to work on: its WR id and
 * scatter list, with room for {@code maxSge} SGEs.
 */
public final class RecvWqe extends Wqe {
    public RecvWqe(int maxSge) {
        super(maxSge);
    }
}
