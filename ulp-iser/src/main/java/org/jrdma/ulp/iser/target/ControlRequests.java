package org.jrdma.ulp.iser.target;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LogoutReason;
import org.jrdma.ulp.iser.pdu.LogoutRequest;
import org.jrdma.ulp.iser.pdu.LogoutResponse;
import org.jrdma.ulp.iser.pdu.NopIn;
import org.jrdma.ulp.iser.pdu.NopOut;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.RejectReason;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.jrdma.ulp.iser.pdu.TextRequest;
import org.jrdma.ulp.iser.pdu.TextResponse;
import org.jrdma.ulp.iser.target.TargetDirectory.SendTarget;

/**
 * The full-feature requests that are not SCSI: NOP-Out (LIO {@code iscsit_handle_nop_out}), Text with
 * SendTargets ({@code iscsit_handle_text_cmd}) and Logout ({@code iscsit_handle_logout_cmd}).
 */
final class ControlRequests {
    /** Logout Response codes (RFC 7143 section 11.15.1). */
    private static final int LOGOUT_OK = 0;
    private static final int LOGOUT_RECOVERY_NOT_SUPPORTED = 2;

    private ControlRequests() {
    }

    /** A ping (ITT set) is echoed, data included; ITT 0xffffffff answers a target ping and gets nothing. */
    static void nopOut(TargetConnection c, IserPdu pdu) {
        NopOut nop = (NopOut) pdu.pdu().header();
        if (nop.itt() == Reject.RESERVED_TAG) {
            return;
        }
        c.sendStatus(sn -> new NopIn(nop.lun(), nop.itt(), Reject.RESERVED_TAG, sn), pdu.pdu().data(), 0);
    }

    /**
     * SendTargets: {@code All} lists every target the initiator may see through this portal; a target name
     * lists that one; empty (normal session only) lists the session's target. Other keys: NotUnderstood.
     */
    static void text(TargetConnection c, IserPdu pdu) {
        TextRequest req = (TextRequest) pdu.pdu().header();
        TextKeys keys;
        try {
            keys = TextKeys.decode(pdu.pdu().data());
        } catch (IscsiProtocolException e) {
            c.reject(e.reason(), req);
            return;
        }
        if (req.cont()) {
            c.reject(RejectReason.CMD_NOT_SUPPORTED, req); // a Text Request sequence over several PDUs
            return;
        }
        List<TextKey> answer = new ArrayList<>();
        for (TextKey k : keys.keys()) {
            if (k.key().equals("SendTargets")) {
                sendTargets(c, k.value(), answer);
            } else {
                answer.add(new TextKey(k.key(), "NotUnderstood"));
            }
        }
        byte[] data = new TextKeys(answer).encode();
        c.sendStatus(sn -> new TextResponse(true, false, req.lun(), req.itt(), Reject.RESERVED_TAG, sn), data, 0);
    }

    private static void sendTargets(TargetConnection c, String value, List<TextKey> answer) {
        SessionParams p = c.session().params();
        String only = value.equals("All") ? null : value.isEmpty() ? p.targetName() : value;
        for (SendTarget t : c.runtime().directory().sendTargets(p.initiatorName(), c.connection().localAddress())) {
            if (only == null || only.equals(t.targetName())) {
                answer.add(new TextKey("TargetName", t.targetName()));
                t.targetAddresses().forEach(a -> answer.add(new TextKey("TargetAddress", a)));
            }
        }
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
