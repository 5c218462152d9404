package org.jrdma.ulp.iser.login;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TextKeys;

/** Builders and drivers for login tests. */
final class Logins {
    static final InetSocketAddress PORTAL = new InetSocketAddress("192.0.2.11", 3260);
    static final long ISID = 0x00023d000002L;
    static final LoginStage SEC = LoginStage.SECURITY_NEGOTIATION;
    static final LoginStage OP = LoginStage.LOGIN_OPERATIONAL_NEGOTIATION;
    static final LoginStage FFP = LoginStage.FULL_FEATURE_PHASE;

    private Logins() {
    }

    static IscsiPdu request(LoginStages stages, int versionMin, int tsih, byte[] data) {
        return new IscsiPdu(new LoginRequest(stages, 0, versionMin, ISID, tsih, 0, 0, new InitiatorSn(0, 0)), data);
    }

    /** A Login Request moving csg -> nsg (T=1 when they differ) with {@code kv} keys. */
    static IscsiPdu request(LoginStage csg, LoginStage nsg, String... kv) {
        return request(new LoginStages(csg != nsg, false, csg, nsg), 0, 0, TextKeys.of(kv).encode());
    }

    /** The names of a Normal login to the captures' target, then {@code more}. */
    static String[] normal(String... more) {
        List<String> kv = new ArrayList<>(List.of("InitiatorName", LoginCaptures.INITIATOR, "TargetName",
                LoginCaptures.TARGET, "SessionType", "Normal"));
        kv.addAll(List.of(more));
        return kv.toArray(String[]::new);
    }

    static LoginStep target(TestPolicy policy, IscsiPdu... requests) {
        TargetLogin login = TargetLogins.create(policy, PORTAL);
        LoginStep step = null;
        for (IscsiPdu r : requests) {
            step = login.onRequest(r);
        }
        return step;
    }

    static LoginResponse header(LoginStep step) {
        return (LoginResponse) step.reply().header();
    }

    static Map<String, String> answers(LoginStep step) throws Exception {
        return LoginCaptures.keys(step.reply());
    }

    /** A refused login: FAILED, the response carries the status and the ISID, no keys. */
    static void assertRefused(LoginStatus status, LoginStep step) {
        assertEquals(LoginStep.State.FAILED, step.state());
        assertEquals(status, header(step).status(), step.failure());
        assertEquals(ISID, header(step).isid());
        assertEquals(0, step.reply().data().length);
        assertEquals(true, step.failure().contains(String.format("0x%02x%02x", status.statusClass(),
                status.detail())), step.failure());
    }

    /** Both sides of a login, PDU by PDU, until one side ends; the last steps of each side and the PDU count. */
    record Run(LoginStep target, LoginStep initiator, int requests) {
    }

    static Run run(InitiatorLogin initiator, TargetLogin target) {
        IscsiPdu req = initiator.start();
        LoginStep t = null;
        LoginStep i = null;
        for (int n = 1; n <= 16; n++) {
            t = target.onRequest(req);
            if (t.reply() == null) {
                return new Run(t, i, n);
            }
            i = initiator.onResponse(t.reply());
            if (i.state() != LoginStep.State.CONTINUE) {
                return new Run(t, i, n);
            }
            req = i.reply();
        }
        throw new AssertionError("login did not end in 16 PDUs");
    }
}
