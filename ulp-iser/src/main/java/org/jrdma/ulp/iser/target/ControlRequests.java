package org.jrdma.ulp.iser.target;

import org.jrdma.ulp.iser.login.SendTargetsText;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LogoutReason;
import org.jrdma.ulp.iser.pdu.LogoutRequest;
import org.jrdma.ulp.iser.pdu.LogoutResponse;
import org.jrdma.ulp.iser.pdu.NopIn;
import org.jrdma.ulp.iser.pdu.NopOut;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextResponse;

/**
 * The full-feature requests that are not SCSI: NOP-Out (LIO {@code iscsit_handle_nop_out}), Text with
 * SendTargets ({@code iscsit_handle_text_cmd}) and Logout ({@code iscsit_handle_logout_cmd}).
 */
final class ControlRequests {
    /** Logout Response codes (RFC 7143 section 11.15.1). */
    private static final int LOGOUT_OK = 0;
    private static final int LOGOUT_RECOVERY_NOT_SUPPORTED = 2;

    /** The responder's sequence numbers are replaced by the connection's when the response is posted. */
    private static final TargetSn PLACEHOLDER = new TargetSn(0, 0, 0);

    private ControlRequests() {
    }

    /**
     * A ping (ITT set) is echoed, data included; ITT 0xffffffff answers the target's ping and gets nothing (one that
     * answers no ping of ours is counted: UNMATCHED_NOP_OUT).
     */
    static void nopOut(TargetConnection c, IserPdu pdu) {
        NopOut nop = (NopOut) pdu.pdu().header();
        if (nop.itt() == Reject.RESERVED_TAG) {
            if (!c.pingAnswered(nop.ttt())) {
                c.runtime().counters().increment(TargetCounter.UNMATCHED_NOP_OUT);
            }
            return;
        }
        c.sendStatus(sn -> new NopIn(nop.lun(), nop.itt(), Reject.RESERVED_TAG, sn), pdu.pdu().data(), 0);
    }

    /**
     * Text in the full feature phase: SendTargets (All, or one target by name) by the login package's
     * {@link SendTargetsText.Responder}, which also joins a request split over C=1 PDUs and hands out an answer
     * longer than the initiator takes in pieces (C=1 + TTT). The response gets this connection's StatSN.
     */
    static void text(TargetConnection c, IserPdu pdu) {
        IscsiPdu rsp;
        try {
            rsp = c.textResponder().onRequest(pdu.pdu(), PLACEHOLDER);
        } catch (IscsiProtocolException e) {
            c.reject(e.reason(), pdu.pdu().header());
            return;
        }
        TextResponse h = (TextResponse) rsp.header();
        c.sendStatus(sn -> new TextResponse(h.fin(), h.cont(), h.lun(), h.itt(), h.ttt(), sn), rsp.data(), 0);
    }

    /**
     * Close the session or this connection (ERL 0 has no recovery): the Logout Response, then the disconnect
     * once it is sent.
     */
    static void logout(TargetConnection c, IserPdu pdu) {
        LogoutRequest req = (LogoutRequest) pdu.pdu().header();
        TargetSession s = c.session();
        int response = req.reason() == LogoutReason.RECOVERY ? LOGOUT_RECOVERY_NOT_SUPPORTED : LOGOUT_OK;
        c.sendStatus(sn -> new LogoutResponse(response, req.itt(), sn, 0, 0), new byte[0], 0)
                .whenComplete((v, e) -> {
                    if (response != LOGOUT_OK) {
                        return;
                    }
                    if (req.reason() == LogoutReason.CLOSE_SESSION) {
                        s.close();
                    } else {
                        c.close();
                    }
                });
    }
}
