package org.jrdma.ulp.iser.login;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.ulp.iser.login.SessionParams.SessionType;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;

/**
 * The initiator's login of one connection (open-iscsi {@code login.c}): the names and either AuthMethod (CHAP
 * configured: security stage first) or straight the operational proposals; then each response's answers are
 * checked against the offers, CHAP is answered, and the final response gives the session parameters.
 */
final class InitiatorLoginMachine implements InitiatorLogin {
    private final InitiatorLoginParams p;
    private final Negotiation negotiation;
    private final InitiatorAuth auth;
    private final Map<LoginKey, String> offered = new LinkedHashMap<>();
    private final ContinuedText pending = new ContinuedText();
    private LoginStage stage;
    private int expStatSn;
    private boolean over;

    InitiatorLoginMachine(InitiatorLoginParams p) {
        this.p = p;
        Map<LoginKey, String> ours = new EnumMap<>(LoginKey.class);
        for (TextKey k : p.proposals().keys(p.sessionType())) {
            ours.put(LoginKey.of(k.key()).orElseThrow(), k.value());
        }
        this.negotiation = new Negotiation(LoginKey.Sender.TARGET, ours);
        this.auth = p.chap() == null ? null : new InitiatorAuth(p.chap());
    }

    @Override
    public IscsiPdu start() {
        List<TextKey> keys = new ArrayList<>();
        keys.add(new TextKey(LoginKey.INITIATOR_NAME.key(), p.initiatorName()));
        if (p.initiatorAlias() != null) {
            keys.add(new TextKey(LoginKey.INITIATOR_ALIAS.key(), p.initiatorAlias()));
        }
        if (p.targetName() != null) {
            keys.add(new TextKey(LoginKey.TARGET_NAME.key(), p.targetName()));
        }
        keys.add(new TextKey(LoginKey.SESSION_TYPE.key(),
                p.sessionType() == SessionType.DISCOVERY ? "Discovery" : "Normal"));
        if (auth != null) {
            stage = LoginStage.SECURITY_NEGOTIATION;
            keys.add(new TextKey(LoginKey.AUTH_METHOD.key(), auth.offer()));
            return request(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, keys);
        }
        stage = LoginStage.LOGIN_OPERATIONAL_NEGOTIATION;
        keys.addAll(proposals());
        return request(true, LoginStage.FULL_FEATURE_PHASE, keys);
    }

    private List<TextKey> proposals() {
        List<TextKey> keys = p.proposals().keys(p.sessionType());
        keys.forEach(k -> offered.put(LoginKey.of(k.key()).orElseThrow(), k.value()));
        return keys;
    }

    @Override
    public LoginStep onResponse(IscsiPdu pdu) {
        try {
            if (over || stage == null) {
                throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "Login Response out of a login");
            }
            if (!(pdu.header() instanceof LoginResponse rsp)) {
                throw new LoginFailure(LoginStatus.INITIATOR_ERROR, pdu.opcode() + " during the login");
            }
            return handle(rsp, pdu.data());
        } catch (LoginFailure f) {
            over = true;
            return new LoginStep(null, LoginStep.State.FAILED, null, f.describe());
        }
    }

    private LoginStep handle(LoginResponse rsp, byte[] data) throws LoginFailure {
        if (rsp.status() != LoginStatus.SUCCESS) {
            throw new LoginFailure(rsp.status(), "refused by the target");
        }
        if (rsp.isid() != p.isid() || rsp.stages().csg() != stage) {
            throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "response for ISID/stage "
                    + Long.toHexString(rsp.isid()) + "/" + rsp.stages().csg() + ", not " + stage);
        }
        expStatSn = rsp.sn().statSn() + 1;
        pending.append(data);
        if (rsp.stages().cont()) {
            return next(request(false, stage, List.of()));
        }
        TextKeys keys = pending.take();
        negotiation.check(keys, stage);
        List<TextKey> out = new ArrayList<>();
        if (stage == LoginStage.SECURITY_NEGOTIATION) {
            out.addAll(auth.onKeys(keys));
        }
        out.addAll(answers(keys));
        boolean transit = rsp.stages().transit();
        if (transit && auth != null && !auth.done()) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "target left the security stage early");
        }
        if (transit && rsp.stages().nsg() == LoginStage.FULL_FEATURE_PHASE) {
            return fullFeature(rsp);
        }
        if (transit) {
            stage = rsp.stages().nsg();
            out.addAll(proposals());
            return next(request(true, LoginStage.FULL_FEATURE_PHASE, out));
        }
        if (stage == LoginStage.SECURITY_NEGOTIATION) {
            return next(request(auth.mayTransit(), LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, out));
        }
        return next(request(true, LoginStage.FULL_FEATURE_PHASE, out));
    }

    /** Answers to this side's offers are checked and recorded; the target's own offers get answers back. */
    private List<TextKey> answers(TextKeys keys) throws LoginFailure {
        List<TextKey> others = new ArrayList<>();
        for (TextKey k : keys.keys()) {
            LoginKey key = LoginKey.of(k.key()).orElse(null);
            if (key != null && offered.containsKey(key)) {
                negotiation.answered(key, offered.remove(key), k.value());
            } else if (key == null || key != LoginKey.AUTH_METHOD && key.rule() != KeyRule.CHAP) {
                others.add(k);
            }
        }
        return negotiation.accept(new TextKeys(others));
    }

    private LoginStep fullFeature(LoginResponse rsp) throws LoginFailure {
        if (rsp.tsih() == 0) {
            throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "final Login Response without a TSIH");
        }
        offered.forEach(negotiation::unanswered);
        over = true;
        long tpgt = negotiation.peerValue(LoginKey.TARGET_PORTAL_GROUP_TAG)
                .map(v -> KeyAnswer.parse(LoginKey.TARGET_PORTAL_GROUP_TAG, v)).orElse(0L);
        LoginIdentity id = new LoginIdentity(p.sessionType(), p.initiatorName(), p.initiatorAlias(),
                p.targetName(), negotiation.peerValue(LoginKey.TARGET_ALIAS).orElse(null), p.isid(), rsp.tsih(),
                (int) Math.max(tpgt, 0), p.proposals().maxRecvDataSegmentLength(),
                LoginIdentity.maxRecv(negotiation.peerValue(LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH).orElse(null)),
                p.cmdSn(), rsp.sn().statSn());
        return new LoginStep(null, LoginStep.State.FULL_FEATURE, id.params(negotiation), null);
    }


    private static LoginStep next(IscsiPdu req) {
        return new LoginStep(req, LoginStep.State.CONTINUE, null, null);
    }

    private IscsiPdu request(boolean transit, LoginStage nsg, List<TextKey> keys) {
        LoginStages stages = new LoginStages(transit, false, stage, transit ? nsg : stage);
        LoginRequest h = new LoginRequest(stages, 0, 0, p.isid(), p.tsih(), 0, 0,
                new InitiatorSn(p.cmdSn(), expStatSn));
        return new IscsiPdu(h, new TextKeys(keys).encode());
    }
}
