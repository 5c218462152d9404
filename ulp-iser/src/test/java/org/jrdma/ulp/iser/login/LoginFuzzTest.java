package org.jrdma.ulp.iser.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.junit.jupiter.api.Test;

/**
 * Random key soups and stage bytes into both machines (fixed seed): never an exception, a FAILED target step
 * always answers with a non-success status, a successful one with SUCCESS.
 */
class LoginFuzzTest {
    private static final String[] NAMES = Arrays.stream(LoginKey.values()).map(LoginKey::key)
            .toArray(String[]::new);
    private static final String[] VALUES = {"", "Yes", "No", "None", "CHAP", "CHAP,None", "0", "1", "512",
        "65536", "16777216", "0x10000", "-1", "Reject", "Irrelevant", "NotUnderstood", "Normal", "Discovery",
        LoginCaptures.INITIATOR, LoginCaptures.TARGET, "5", "0xzz", "0b////", "x".repeat(300)};
    private static final LoginStage[] STAGES = LoginStage.values();

    private static byte[] soup(Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int n = r.nextInt(8);
        for (int i = 0; i < n; i++) {
            String key = r.nextInt(10) == 0 ? "X-junk" + r.nextInt(3) : NAMES[r.nextInt(NAMES.length)];
            String kv = r.nextInt(30) == 0 ? key : key + "=" + VALUES[r.nextInt(VALUES.length)];
            out.writeBytes(kv.getBytes(StandardCharsets.UTF_8));
            if (r.nextInt(40) != 0) {
                out.write(0);
            }
        }
        return out.toByteArray();
    }

    private static LoginStages stages(Random r) {
        return new LoginStages(r.nextBoolean(), r.nextInt(6) == 0, STAGES[r.nextInt(STAGES.length)],
                STAGES[r.nextInt(STAGES.length)]);
    }

    @Test
    void targetNeverThrows() {
        Random r = new Random(14);
        Set<LoginStatus> seen = EnumSet.noneOf(LoginStatus.class);
        int fullFeature = 0;
        for (int login = 0; login < 1500; login++) {
            TestPolicy policy = TestPolicy.lio();
            if (r.nextBoolean()) {
                policy.chap.put(LoginCaptures.TARGET, new ChapSecrets("alice", "s3cret-pass", "bob", "other-pass"));
            }
            TargetLogin t = TargetLogins.create(policy, Logins.PORTAL);
            boolean named = r.nextBoolean();
            for (int pdu = 0; pdu < 4; pdu++) {
                byte[] data = soup(r);
                if (named && pdu == 0) {
                    data = concat(Logins.request(Logins.OP, Logins.OP, Logins.normal()).data(), data);
                }
                IscsiPdu req = new IscsiPdu(new LoginRequest(stages(r), 0, r.nextInt(12) == 0 ? 1 : 0, Logins.ISID,
                        r.nextInt(12) == 0 ? 5 : 0, 0, 0, new InitiatorSn(0, 0)), data);
                LoginStep step = t.onRequest(req);
                assertNotNull(step.reply());
                LoginStatus status = ((LoginResponse) step.reply().header()).status();
                seen.add(status);
                fullFeature += step.state() == LoginStep.State.FULL_FEATURE ? 1 : 0;
                if (step.state() == LoginStep.State.FAILED) {
                    assertNotEquals(LoginStatus.SUCCESS, status, step.failure());
                    break;
                }
                assertEquals(LoginStatus.SUCCESS, status);
            }
        }
        // the soup reaches the ends, not only the first check
        assertTrue(fullFeature >= 5, "full feature " + fullFeature);
        assertTrue(seen.containsAll(EnumSet.of(LoginStatus.INITIATOR_ERROR, LoginStatus.AUTHENTICATION_FAILURE,
                LoginStatus.MISSING_PARAMETER, LoginStatus.SESSION_DOES_NOT_EXIST, LoginStatus.UNSUPPORTED_VERSION)),
                seen.toString());
    }

    @Test
    void initiatorNeverThrows() {
        Random r = new Random(7143);
        for (int login = 0; login < 1500; login++) {
            InitiatorLoginParams p = InitiatorLoginParams.normal(LoginCaptures.INITIATOR, LoginCaptures.TARGET,
                    Logins.ISID);
            InitiatorLogin i = InitiatorLogins.create(r.nextBoolean() ? p
                    : p.withChap(new ChapSecrets("alice", "s3cret-pass", "bob", "other-pass")));
            i.start();
            for (int pdu = 0; pdu < 4; pdu++) {
                LoginStatus status = r.nextInt(8) == 0 ? LoginStatus.TARGET_NOT_FOUND : LoginStatus.SUCCESS;
                IscsiPdu rsp = new IscsiPdu(new LoginResponse(stages(r), 0, 0, Logins.ISID, r.nextInt(3), 0,
                        new TargetSn(pdu, 0, 0), status), soup(r));
                LoginStep step = i.onResponse(rsp);
                if (step.state() != LoginStep.State.CONTINUE) {
                    assertEquals(step.state() == LoginStep.State.FAILED, step.failure() != null);
                    break;
                }
                assertNotNull(step.reply());
            }
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
