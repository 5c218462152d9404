package org.jrdma.ulp.iser.login;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jrdma.ulp.iser.login.SessionParams.SessionType;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;

/**
 * The target's login of one connection (LIO {@code iscsi_target_login.c}, {@code iscsi_target_nego.c}): checks
 * the first request (version, TSIH, names, target, ACL), joins C=1 text, runs the security stage
 * ({@link TargetAuth}) and the operational keys ({@link Negotiation}), moves through the stages of
 * {@link LoginTransition}, and ends at FULL_FEATURE with the session parameters or FAILED with a status.
 */
final class TargetLoginMachine implements TargetLogin {
    private final TargetLoginPolicy policy;
    private final InetSocketAddress portal;
    private final Negotiation negotiation;
    private final ContinuedText pending = new ContinuedText();
    private LoginRequest first;
    private LoginStage stage;
    private TargetAuth auth;
    private int statSn;
    private int tpgt;
    private boolean over;

    TargetLoginMachine(TargetLoginPolicy policy, InetSocketAddress portal, Map<LoginKey, String> targetValues) {
        this.policy = policy;
        this.portal = portal;
        this.negotiation = new Negotiation(LoginKey.Sender.INITIATOR, targetValues);
    }

    /** LIO's values: what it answers in the captures (and its defaults for what they do not show). */
    static Map<LoginKey, String> lioValues() {
        Map<LoginKey, String> v = new EnumMap<>(LoginKey.class);
        v.put(LoginKey.AUTH_METHOD, "None");
        v.put(LoginKey.INITIAL_R2T, "Yes");
        v.put(LoginKey.IMMEDIATE_DATA, "Yes");
        v.put(LoginKey.MAX_BURST_LENGTH, "262144");
        v.put(LoginKey.FIRST_BURST_LENGTH, "65536");
        v.put(LoginKey.DEFAULT_TIME2WAIT, "2");
        v.put(LoginKey.DEFAULT_TIME2RETAIN, "20");
        v.put(LoginKey.RDMA_EXTENSIONS, "Yes");
        v.put(LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH, "262144");
        v.put(LoginKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH, "262144");
        v.put(LoginKey.TARGET_RECV_DATA_SEGMENT_LENGTH, "8192");
        return v;
    }

    @Override
    public LoginStep onRequest(IscsiPdu pdu) {
        if (!(pdu.header() instanceof LoginRequest req)) {
            return failed(null, new LoginFailure(LoginStatus.INVALID_DURING_LOGIN,
                    pdu.opcode() + " during the login"));
        }
        try {
            if (over) {
                throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "Login Request after the login ended");
            }
            return handle(req, pdu.data());
        } catch (LoginFailure f) {
            return failed(req, f);
        } catch (RuntimeException e) {
            // the policy is the configuration's code: its failure is the target's error, not a thrown handler
            return failed(req, new LoginFailure(LoginStatus.TARGET_ERROR, "target configuration: " + e));
        }
    }

    private LoginStep handle(LoginRequest req, byte[] data) throws LoginFailure {
        if (first == null) {
            firstRequest(req);
        } else if (req.isid() != first.isid() || req.tsih() != first.tsih()) {
            throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "ISID/TSIH changed during the login");
        }
        LoginTransition move = LoginTransition.of(req.stages()).orElseThrow(() -> new LoginFailure(
                LoginStatus.INITIATOR_ERROR, "no stage move " + req.stages()));
        if (stage != null && move.csg() != stage) {
            throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "CSG " + move.csg() + " while in " + stage);
        }
        stage = move.csg();
        pending.append(data);
        if (req.stages().cont()) {
            // RFC 7143 6.3: the target answers each C=1 PDU with an empty response and waits for the rest
            return new LoginStep(response(req, move.answer(false), 0, LoginStatus.SUCCESS, new byte[0]),
                    LoginStep.State.CONTINUE, null, null);
        }
        TextKeys keys = pending.take();
        negotiation.check(keys, stage);
        List<TextKey> answers = new ArrayList<>();
        if (auth == null) {
            admit(keys);
            answers.add(new TextKey(LoginKey.TARGET_PORTAL_GROUP_TAG.key(), Integer.toString(tpgt)));
        }
        if (stage == LoginStage.SECURITY_NEGOTIATION) {
            auth.onKeys(keys, answers);
        } else if (!auth.done()) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "operational stage without CHAP");
        }
        answers.addAll(negotiation.accept(keys));
        boolean granted = move.transit() && (stage != LoginStage.SECURITY_NEGOTIATION || auth.done());
        if (move.transit() && !auth.done() && auth.notStarted()) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "leaving the security stage without AuthMethod");
        }
        if (granted && move.nsg() == LoginStage.FULL_FEATURE_PHASE) {
            return fullFeature(req, move, answers);
        }
        if (granted) {
            stage = move.nsg();
        }
        return new LoginStep(response(req, move.answer(granted), 0, LoginStatus.SUCCESS, encode(answers)),
                LoginStep.State.CONTINUE, null, null);
    }

    private void firstRequest(LoginRequest req) throws LoginFailure {
        first = req;
        statSn = policy.initialStatSn();
        if (req.versionMin() > 0) {
            throw new LoginFailure(LoginStatus.UNSUPPORTED_VERSION,
                    "Version-min " + req.versionMin() + " over this target's 0");
        }
        if (req.tsih() != 0) {
            throw policy.sessionExists(req.isid(), req.tsih())
                    ? new LoginFailure(LoginStatus.TOO_MANY_CONNECTIONS, "MaxConnections=1: no second connection")
                    : new LoginFailure(LoginStatus.SESSION_DOES_NOT_EXIST, "no session with TSIH " + req.tsih());
        }
    }

    /** The first request's names: who, to what, allowed or not (LIO {@code iscsi_target_locate_portal}). */
    private void admit(TextKeys keys) throws LoginFailure {
        String initiator = keys.get(LoginKey.INITIATOR_NAME.key()).filter(n -> !n.isEmpty()).orElseThrow(
                () -> new LoginFailure(LoginStatus.MISSING_PARAMETER, "no InitiatorName"));
        String type = keys.get(LoginKey.SESSION_TYPE.key()).orElse("Normal");
        if (type.equals("Discovery")) {
            tpgt = policy.discoveryPortalGroupTag();
            auth = new TargetAuth(policy.chapSecrets(initiator, null));
            return;
        }
        if (!type.equals("Normal")) {
            throw new LoginFailure(LoginStatus.SESSION_TYPE_NOT_SUPPORTED, "SessionType=" + type);
        }
        String target = keys.get(LoginKey.TARGET_NAME.key()).filter(n -> !n.isEmpty()).orElseThrow(
                () -> new LoginFailure(LoginStatus.MISSING_PARAMETER, "no TargetName in a Normal session"));
        tpgt = policy.portalGroupTag(target).orElseThrow(() -> new LoginFailure(LoginStatus.TARGET_NOT_FOUND,
                "no target " + target + " on " + portal));
        if (!policy.allows(initiator, target)) {
            throw new LoginFailure(LoginStatus.AUTHORIZATION_FAILURE, initiator + " is not in the ACL of " + target);
        }
        auth = new TargetAuth(policy.chapSecrets(initiator, target));
    }

    private LoginStep fullFeature(LoginRequest req, LoginTransition move, List<TextKey> answers)
            throws LoginFailure {
        String target = negotiation.peerValue(LoginKey.TARGET_NAME).orElse(null);
        Optional<String> alias = policy.targetAlias(target);
        alias.ifPresent(a -> answers.add(new TextKey(LoginKey.TARGET_ALIAS.key(), a)));
        declare(answers);
        int tsih = policy.allocateTsih();
        if (tsih == 0 || tsih > 0xffff) {
            throw new LoginFailure(LoginStatus.OUT_OF_RESOURCES, "no TSIH left (got " + tsih + ")");
        }
        int sn = statSn;
        LoginIdentity id = new LoginIdentity(
                negotiation.discovery() ? SessionType.DISCOVERY : SessionType.NORMAL,
                negotiation.peerValue(LoginKey.INITIATOR_NAME).orElseThrow(),
                negotiation.peerValue(LoginKey.INITIATOR_ALIAS).orElse(null), target, alias.orElse(null),
                first.isid(), tsih, tpgt,
                LoginIdentity.maxRecv(negotiation.peerValue(LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH).orElse(null)),
                LoginIdentity.maxRecv(negotiation.ours(LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH)),
                first.sn().cmdSn(), sn);
        IscsiPdu rsp = response(req, move.answer(true), tsih, LoginStatus.SUCCESS, encode(answers));
        over = true;
        return new LoginStep(rsp, LoginStep.State.FULL_FEATURE, id.params(negotiation), null);
    }

    /** The target's declarations: MaxRecvDataSegmentLength over iSCSI, the RDMA lengths LIO always states. */
    private void declare(List<TextKey> answers) {
        List<LoginKey> keys = negotiation.rdma()
                ? List.of(LoginKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH, LoginKey.TARGET_RECV_DATA_SEGMENT_LENGTH)
                : List.of(LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH);
        for (LoginKey k : keys) {
            if (answers.stream().noneMatch(a -> a.key().equals(k.key()))) {
                String v = k.rule() == KeyRule.DECLARATIVE ? negotiation.ours(k) : negotiation.value(k);
                answers.add(new TextKey(k.key(), v));
            }
        }
    }


    private static byte[] encode(List<TextKey> answers) {
        return new TextKeys(answers).encode();
    }

    private IscsiPdu response(LoginRequest req, LoginStages stages, int tsih, LoginStatus status, byte[] data) {
        int cmdSn = first != null ? first.sn().cmdSn() : req.sn().cmdSn();
        // LIO: ExpCmdSN = MaxCmdSN = the login's CmdSN (the captures); StatSN moves on with each response
        LoginResponse h = new LoginResponse(stages, 0, 0, req.isid(), tsih, req.itt(),
                new TargetSn(statSn++, cmdSn, cmdSn), status);
        return new IscsiPdu(h, data);
    }

    private LoginStep failed(LoginRequest req, LoginFailure f) {
        over = true;
        IscsiPdu rsp = null;
        if (req != null) {
            LoginStage csg = req.stages().csg();
            rsp = response(req, new LoginStages(false, false, csg, csg), req.tsih(), f.status(), new byte[0]);
        }
        return new LoginStep(rsp, LoginStep.State.FAILED, null, f.describe());
    }
}
