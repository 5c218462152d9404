package org.jrdma.ulp.iser.target;

import java.util.Optional;
import org.jrdma.ulp.iser.login.LoginStep;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.login.SessionParams.SessionType;
import org.jrdma.ulp.iser.login.TargetLogin;
import org.jrdma.ulp.iser.login.TargetLoginPolicy;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextKeys;

/**
 * A one-step login for the full-feature tests (no negotiation: open-iscsi's iSER values are taken as agreed):
 * the first request's InitiatorName/TargetName/SessionType decide, the policy answers target-not-found and
 * authorization, a new session gets a TSIH from the policy. The real negotiation is the login package's.
 */
final class SimpleTargetLogin implements TargetLogin {
    static final int FIRST_STAT_SN = 0x1000;
    private final TargetLoginPolicy policy;

    SimpleTargetLogin(TargetLoginPolicy policy) {
        this.policy = policy;
    }

    @Override
    public LoginStep onRequest(IscsiPdu pdu) {
        LoginRequest req = (LoginRequest) pdu.header();
        TextKeys keys;
        try {
            keys = TextKeys.decode(pdu.data());
        } catch (IscsiProtocolException e) {
            return fail(req, LoginStatus.INITIATOR_ERROR);
        }
        String initiator = keys.get("InitiatorName").orElse(null);
        SessionType type = keys.get("SessionType").orElse("Normal").equals("Discovery") ? SessionType.DISCOVERY
                : SessionType.NORMAL;
        String target = keys.get("TargetName").orElse(null);
        if (initiator == null) {
            return fail(req, LoginStatus.MISSING_PARAMETER);
        }
        int tag = 1;
        if (type == SessionType.NORMAL) {
            Optional<Integer> t = policy.portalGroupTag(target);
            if (t.isEmpty()) {
                return fail(req, LoginStatus.TARGET_NOT_FOUND);
            }
            if (!policy.allows(initiator, target)) {
                return fail(req, LoginStatus.AUTHORIZATION_FAILURE);
            }
            tag = t.get();
        }
        int tsih = req.tsih() != 0 ? req.tsih() : policy.allocateTsih();
        SessionParams p = new SessionParams(type, initiator, null, target, null, req.isid(), tsih, tag, true, true,
                true, 262144, 65536, 1, 262144, 8192, 0, 1, 0, 2, 0, true, true, req.sn().cmdSn(), FIRST_STAT_SN);
        LoginResponse rsp = new LoginResponse(new LoginStages(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE), 0, 0, req.isid(), tsih, req.itt(),
                new TargetSn(FIRST_STAT_SN, req.sn().cmdSn(), req.sn().cmdSn()), LoginStatus.SUCCESS);
        return new LoginStep(new IscsiPdu(rsp, new byte[0]), LoginStep.State.FULL_FEATURE, p, null);
    }

    private static LoginStep fail(LoginRequest req, LoginStatus status) {
        LoginResponse rsp = new LoginResponse(new LoginStages(false, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.LOGIN_OPERATIONAL_NEGOTIATION), 0, 0, req.isid(), 0, req.itt(),
                new TargetSn(0, req.sn().cmdSn(), req.sn().cmdSn()), status);
        return new LoginStep(new IscsiPdu(rsp, new byte[0]), LoginStep.State.FAILED, null, status.toString());
    }
}
