package org.jrdma.ib.cm.ib;

/** {@code ib_cm_handler}. */
@FunctionalInterface
public interface IbCmHandler {
    /**
     * Handles {@code event} of {@code id}. For REQ_RECEIVED and SIDR_REQ_RECEIVED {@code id} is a NEW id
     * for the connection (the listener is {@link IbCmEvent#listenId()}). A non-zero answer destroys
     * {@code id} as {@link IbCmId#close} does (a REQ is rejected, a connection disconnected).
     */
    int handle(IbCmId id, IbCmEvent event);
}
