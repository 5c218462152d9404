package org.jrdma.ulp.iser.initiator;

import org.jrdma.ulp.iser.login.InitiatorLogin;
import org.jrdma.ulp.iser.login.LoginStep;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.login.SessionParams.SessionType;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TextKeys;

/**
 * A one-PDU operational login for tests until the login package's negotiation is merged: it proposes the names
 * and takes open-iscsi's iSER values as negotiated (ImmediateData=Yes, FirstBurstLength 64 KiB,
 * TargetRecvDataSegmentLength 8 KiB).
 */
final class ScriptedLogin implements InitiatorLogin {
    private final LoginSpec spec;

    ScriptedLogin(LoginSpec spec) {
        this.spec = spec;
    }

    @Override
    public IscsiPdu start() {
        TextKeys keys = spec.targetName() == null
                ? TextKeys.of("InitiatorName", spec.initiatorName(), "SessionType", "Discovery")
                : TextKeys.of("InitiatorName", spec.initiatorName(), "TargetName", spec.targetName(),
                        "SessionType", "Normal");
        LoginRequest r = new LoginRequest(new LoginStages(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE), 0, 0, spec.isid(), spec.tsih(), 0, 0,
                new InitiatorSn(spec.cmdSn(), 0));
        return new IscsiPdu(r, keys.encode());
    }

    @Override
    public LoginStep onResponse(IscsiPdu pdu) {
        LoginResponse r = (LoginResponse) pdu.header();
        if (r.status() != LoginStatus.SUCCESS) {
            return new LoginStep(null, LoginStep.State.FAILED, null, "login failed: " + r.status());
        }
        SessionParams p = new SessionParams(spec.sessionType() == null ? SessionType.NORMAL : spec.sessionType(),
                spec.initiatorName(), spec.initiatorAlias(), spec.targetName(), null, spec.isid(), r.tsih(), 1,
                true, false, true, 262144, 65536, 1, 8192, 8192, 0, 1, 0, 2, 20, true, true, spec.cmdSn(),
                r.sn().statSn());
        return new LoginStep(null, LoginStep.State.FULL_FEATURE, p, null);
    }
}
