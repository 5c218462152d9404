package org.jrdma.ulp.iser.login;

import java.util.Arrays;
import java.util.Optional;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStages;

/**
 * The stage moves a Login Request may ask for (RFC 7143 sections 6.3 and 11.12.3, LIO {@code iscsi_target_nego.c}):
 * stay in CSG (T=0) or transit to a later NSG (T=1). Anything else (CSG=FullFeaturePhase, going back, T with C)
 * is not a row and fails the login 0x0200.
 */
enum LoginTransition {
    STAY_SECURITY(LoginStage.SECURITY_NEGOTIATION, false, LoginStage.SECURITY_NEGOTIATION),
    SECURITY_TO_OPERATIONAL(LoginStage.SECURITY_NEGOTIATION, true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION),
    SECURITY_TO_FULL_FEATURE(LoginStage.SECURITY_NEGOTIATION, true, LoginStage.FULL_FEATURE_PHASE),
    STAY_OPERATIONAL(LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION),
    OPERATIONAL_TO_FULL_FEATURE(LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, true, LoginStage.FULL_FEATURE_PHASE);

    private final LoginStage csg;
    private final boolean transit;
    private final LoginStage nsg;

    LoginTransition(LoginStage csg, boolean transit, LoginStage nsg) {
        this.csg = csg;
        this.transit = transit;
        this.nsg = nsg;
    }

    /** The row of a request's byte 1 (NSG is ignored without T, as the RFC says). */
    static Optional<LoginTransition> of(LoginStages s) {
        if (s.transit() && s.cont()) {
            return Optional.empty();
        }
        return Arrays.stream(values())
                .filter(t -> t.csg == s.csg() && t.transit == s.transit() && (!t.transit || t.nsg == s.nsg()))
                .findFirst();
    }

    LoginStage csg() {
        return csg;
    }

    boolean transit() {
        return transit;
    }

    LoginStage nsg() {
        return nsg;
    }

    /** The answer's byte 1: transit granted or not; without T, NSG repeats CSG. */
    LoginStages answer(boolean granted) {
        return granted ? new LoginStages(true, false, csg, nsg) : new LoginStages(false, false, csg, csg);
    }
}
