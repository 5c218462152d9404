package org.jrdma.ib.mad;

import org.jrdma.ib.core.WcStatus;

/**
 * An agent's callbacks ({@code recv_handler} and {@code send_handler}). They run on the MAD layer's
 * thread for the port, one at a time per agent; they may send, and must not block for long.
 */
public interface MadHandler {
    /** An unsolicited MAD the agent claimed, or a response to one of its sends ({@link MadRecv#request()}). */
    void recv(MadAgent agent, MadRecv recv);

    /**
     * A send is done: SUCCESS (sent; and answered if it expected a response), RESP_TIMEOUT_ERR (no
     * response after its retries), WR_FLUSH_ERR (cancelled, or the agent or port went away), or an
     * error status of the send itself.
     */
    default void sendDone(MadAgent agent, MadSend send, WcStatus status) {
    }
}
