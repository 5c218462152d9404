package org.jrdma.ulp.iser.login;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.RejectReason;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.jrdma.ulp.iser.pdu.TextRequest;
import org.jrdma.ulp.iser.pdu.TextResponse;

/**
 * The discovery session's Text exchange (RFC 7143 section 11.10/11.11 and appendix C): the initiator asks
 * {@code SendTargets=All}, the target answers TargetName/TargetAddress pairs. An answer longer than the
 * initiator's receive length goes out in pieces: C=1 with a Target Transfer Tag, the initiator asks for the
 * next piece with an empty Text Request carrying that tag, the last piece has F=1 and TTT 0xffffffff.
 */
public final class SendTargetsText {
    static final String SEND_TARGETS = LoginKey.SEND_TARGETS.key();

    private SendTargetsText() {
    }

    /** The initiator's request: {@code SendTargets=All}, F=1, TTT 0xffffffff (open-iscsi sends it so). */
    public static IscsiPdu request(int itt, InitiatorSn sn) {
        return new IscsiPdu(new TextRequest(false, true, false, 0, itt, Reject.RESERVED_TAG, sn),
                TextKeys.of(SEND_TARGETS, "All").encode());
    }

    /** The initiator's empty request for the next piece of a C=1 answer. */
    public static IscsiPdu next(TextResponse piece, InitiatorSn sn) {
        return new IscsiPdu(new TextRequest(false, true, false, 0, piece.itt(), piece.ttt(), sn), new byte[0]);
    }

    /** The targets of a whole (joined) answer, in order; a TargetAddress before any TargetName is an error. */
    public static List<DiscoveredTarget> parse(byte[] answer) throws IscsiProtocolException {
        List<String> names = new ArrayList<>();
        List<List<String>> addresses = new ArrayList<>();
        for (TextKey k : TextKeys.decode(answer).keys()) {
            if (k.key().equals(LoginKey.TARGET_NAME.key())) {
                names.add(k.value());
                addresses.add(new ArrayList<>());
            } else if (k.key().equals(LoginKey.TARGET_ADDRESS.key())) {
                if (names.isEmpty()) {
                    throw new IscsiProtocolException(RejectReason.INVALID_PDU_FIELD,
                            "TargetAddress before any TargetName");
                }
                addresses.get(addresses.size() - 1).add(k.value());
            }
        }
        List<DiscoveredTarget> targets = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            targets.add(new DiscoveredTarget(names.get(i), addresses.get(i)));
        }
        return targets;
    }

    /**
     * The target's side for one discovery session: answers a SendTargets request (All, or one target by name),
     * and the follow-up requests for the pieces of a long answer; a request split over C=1 PDUs is joined first.
     */
    public static final class Responder {
        private final TargetLoginPolicy policy;
        private final String initiatorName;
        private final int maxRecv;
        private final ByteArrayOutputStream asked = new ByteArrayOutputStream();
        private byte[] rest;
        private int ttt;
        private int nextTtt = 1;

        /**
         * @param maxRecv the largest data segment the initiator takes
         *                ({@link SessionParams#initiatorRecvDataSegmentLength()})
         */
        public Responder(TargetLoginPolicy policy, String initiatorName, int maxRecv) {
            this.policy = policy;
            this.initiatorName = initiatorName;
            this.maxRecv = Math.max(maxRecv, 512);
        }

        /** The Text Response to {@code request} (a Text Request PDU), with {@code sn} from the session. */
        public IscsiPdu onRequest(IscsiPdu request, TargetSn sn) throws IscsiProtocolException {
            if (!(request.header() instanceof TextRequest req)) {
                throw new IscsiProtocolException(RejectReason.PROTOCOL_ERROR,
                        request.opcode() + " is not a Text Request");
            }
            if (req.ttt() != Reject.RESERVED_TAG && rest != null && req.ttt() == ttt) {
                return piece(req, sn);
            }
            rest = null;
            if (asked.size() + request.data().length > ContinuedText.MAX_LOGIN_TEXT) {
                asked.reset();
                throw new IscsiProtocolException(RejectReason.PROTOCOL_ERROR, "Text Request keys over "
                        + ContinuedText.MAX_LOGIN_TEXT + " bytes");
            }
            asked.writeBytes(request.data());
            ttt = nextTtt++ & 0x7fffffff;
            if (req.cont()) {
                // RFC 7143 11.10.2: each C=1 part is answered with an empty response; the rest comes next
                return new IscsiPdu(new TextResponse(false, false, 0, req.itt(), ttt, sn), new byte[0]);
            }
            byte[] whole = asked.toByteArray();
            asked.reset();
            rest = answer(TextKeys.decode(whole)).encode();
            return piece(req, sn);
        }

        private TextKeys answer(TextKeys asked) {
            List<TextKey> out = new ArrayList<>();
            for (TextKey k : asked.keys()) {
                if (k.key().equals(SEND_TARGETS)) {
                    out.addAll(targets(k.value()));
                } else {
                    out.add(new TextKey(k.key(), KeyAnswer.NOT_UNDERSTOOD));
                }
            }
            return new TextKeys(out);
        }

        /** All targets, or the pairs of the one named (RFC 7143 appendix C). */
        private List<TextKey> targets(String which) {
            List<TextKey> out = new ArrayList<>();
            boolean in = false;
            for (String[] pair : policy.sendTargets(initiatorName)) {
                if (pair[0].equals(LoginKey.TARGET_NAME.key())) {
                    in = which.equals("All") || which.equals(pair[1]);
                }
                if (in) {
                    out.add(new TextKey(pair[0], pair[1]));
                }
            }
            return out;
        }

        private IscsiPdu piece(TextRequest req, TargetSn sn) {
            int n = Math.min(rest.length, maxRecv);
            byte[] data = Arrays.copyOf(rest, n);
            boolean last = n == rest.length;
            rest = last ? null : Arrays.copyOfRange(rest, n, rest.length);
            TextResponse h = new TextResponse(last, !last, 0, req.itt(), last ? Reject.RESERVED_TAG : ttt, sn);
            return new IscsiPdu(h, data);
        }
    }

    /**
     * The initiator's side: joins the pieces of an answer; {@link #onResponse} gives the next request to send
     * (for a C=1 piece) or empty when the answer is whole, then {@link #targets()} has the result.
     */
    public static final class Collector {
        private final ByteArrayOutputStream joined = new ByteArrayOutputStream();
        private boolean done;

        public Optional<IscsiPdu> onResponse(IscsiPdu response, InitiatorSn sn) throws IscsiProtocolException {
            if (!(response.header() instanceof TextResponse rsp)) {
                throw new IscsiProtocolException(RejectReason.PROTOCOL_ERROR,
                        response.opcode() + " is not a Text Response");
            }
            joined.writeBytes(response.data());
            if (rsp.cont() || !rsp.fin()) {
                return Optional.of(next(rsp, sn));
            }
            done = true;
            return Optional.empty();
        }

        public boolean done() {
            return done;
        }

        public List<DiscoveredTarget> targets() throws IscsiProtocolException {
            if (!done) {
                throw new IllegalStateException("the SendTargets answer is not complete");
            }
            return parse(joined.toByteArray());
        }
    }
}
