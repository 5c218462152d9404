package org.jrdma.ulp.iser.target;

import java.util.ArrayList;
import java.util.Arrays;
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
     * lists that one; empty (normal session only) lists the session's target. Other keys: NotUnderstood. An
     * answer longer than the initiator takes in one PDU goes in pieces (C=1 and a TTT; the initiator asks for
     * each next piece with an empty Text Request carrying that TTT, RFC 7143 section 11.11.2).
     */
    static void text(TargetConnection c, IserPdu pdu) {
        TextRequest req = (TextRequest) pdu.pdu().header();
        if (req.ttt() != Reject.RESERVED_TAG) {
            TextRemainder rest = c.takeTextRemainder(req.ttt());
            if (rest == null) {
                c.reject(RejectReason.INVALID_PDU_FIELD, req);
            } else {
                sendPiece(c, req, rest.data());
            }
            return;
        }
        if (req.cont()) {
            c.reject(RejectReason.CMD_NOT_SUPPORTED, req); // a request's keys over several PDUs
            return;
        }
        TextKeys keys;
        try {
            keys = TextKeys.decode(pdu.pdu().data());
        } catch (IscsiProtocolException e) {
            c.reject(e.reason(), req);
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
        sendPiece(c, req, new TextKeys(answer).encode());
    }

    /** What fits in one PDU of {@code data}; the rest is kept under a new TTT. */
    private static void sendPiece(TargetConnection c, TextRequest req, byte[] data) {
        int max = Math.min(c.session().params().initiatorRecvDataSegmentLength(),
                c.connection().maxRecvDataSegmentLength());
        boolean last = data.length <= max;
        byte[] piece = last ? data : Arrays.copyOf(data, max);
        int ttt = last ? Reject.RESERVED_TAG : c.keepTextRemainder(Arrays.copyOfRange(data, max, data.length));
        c.sendStatus(sn -> new TextResponse(last, !last, req.lun(), req.itt(), ttt, sn), piece, 0);
    }

    /** The part of a Text Response not sent yet, and the TTT the initiator continues it with. */
    record TextRemainder(int ttt, byte[] data) {
    }

    private static void sendTargets(TargetConnection c, String value, List<TextKey> answer) {
        SessionParams p = c.session().params();
        String only = value.equals("All") ? null : value.isEmpty() ? p.targetName() : value;
        List<SendTarget> targets = c.runtime().directory().sendTargets(p.initiatorName(),
                c.connection().localAddress()).stream().filter(t -> only == null || only.equals(t.targetName()))
                .toList();
        DirectoryLoginPolicy.pairs(targets).forEach(kv -> answer.add(new TextKey(kv[0], kv[1])));
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
