package org.jrdma.ulp.iser.login;

import java.util.Optional;
import org.jrdma.ulp.iser.pdu.IscsiPdu;

/**
 * The result of feeding one PDU to a login state machine.
 *
 * @param reply   the PDU to send now (target: a Login Response; initiator: the next Login Request), or null
 * @param state   where the login is after it
 * @param params  the negotiated parameters, once {@link State#FULL_FEATURE}
 * @param failure why the login failed (in words, with the RFC's status class/detail), once {@link State#FAILED}
 */
public record LoginStep(IscsiPdu reply, State state, SessionParams params, String failure) {
    public enum State {
        /** More login PDUs to come. */
        CONTINUE,
        /** The final response (T=1, NSG=FullFeaturePhase) was sent / received: params are set. */
        FULL_FEATURE,
        /** Failed: the target sent a non-zero status (and closes the connection), or the initiator got one. */
        FAILED
    }

    public Optional<SessionParams> negotiated() {
        return Optional.ofNullable(params);
    }
}
