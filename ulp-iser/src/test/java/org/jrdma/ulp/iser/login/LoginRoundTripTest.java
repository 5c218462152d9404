package org.jrdma.ulp.iser.login;

import static org.jrdma.ulp.iser.login.Logins.PORTAL;
import static org.jrdma.ulp.iser.login.Logins.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.ulp.iser.login.SessionParams.SessionType;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.junit.jupiter.api.Test;

/** Our initiator against our target: plain, CHAP, mutual CHAP, discovery, and the CHAP failures. */
class LoginRoundTripTest {
    private static final InitiatorLoginParams NORMAL = InitiatorLoginParams.normal(LoginCaptures.INITIATOR,
            LoginCaptures.TARGET, Logins.ISID).withAlias("rxepeer");

    private static Logins.Run login(TestPolicy policy, InitiatorLoginParams p) {
        return run(InitiatorLogins.create(p), TargetLogins.create(policy, PORTAL));
    }

    /** LIO of the captures with CHAP set on its target. */
    private static TestPolicy chap(ChapSecrets secrets) {
        TestPolicy policy = TestPolicy.lio();
        policy.chap.put(LoginCaptures.TARGET, secrets);
        return policy;
    }

    private static void assertSameParams(Logins.Run r) {
        assertEquals(LoginStep.State.FULL_FEATURE, r.target().state(), r.target().failure());
        assertEquals(LoginStep.State.FULL_FEATURE, r.initiator().state(), r.initiator().failure());
        assertEquals(r.target().params(), r.initiator().params());
    }

    @Test
    void plainLoginSettlesTheSameParamsOnBothSides() {
        Logins.Run r = login(TestPolicy.lio(), NORMAL);
        assertSameParams(r);
        assertEquals(1, r.requests());
        SessionParams s = r.initiator().params();
        assertEquals(1, s.tsih());
        assertEquals("LIO Target", s.targetAlias());
        assertTrue(s.rdmaExtensions());
        assertEquals(8192, s.targetRecvDataSegmentLength());
        assertEquals(262144, s.initiatorRecvDataSegmentLength());
    }

    @Test
    void discoveryLogin() {
        Logins.Run r = login(TestPolicy.lio(), InitiatorLoginParams.discovery(LoginCaptures.INITIATOR, 1));
        assertSameParams(r);
        SessionParams s = r.initiator().params();
        assertEquals(SessionType.DISCOVERY, s.sessionType());
        assertNull(s.targetName());
        assertEquals(false, s.rdmaExtensions());
        assertEquals(8192, s.initiatorRecvDataSegmentLength());
        assertEquals(262144, s.targetRecvDataSegmentLength());
    }

    @Test
    void chapLoginGoesThroughTheSecurityStage() {
        TestPolicy policy = chap(new ChapSecrets("alice", "s3cret-pass"));
        Logins.Run r = login(policy, NORMAL.withChap(new ChapSecrets("alice", "s3cret-pass")));
        assertSameParams(r);
        // AuthMethod, CHAP_A, CHAP_N/CHAP_R, then the operational stage
        assertEquals(4, r.requests());
    }

    @Test
    void mutualChapLogin() {
        TestPolicy policy = TestPolicy.lio();
        ChapSecrets both = new ChapSecrets("alice", "s3cret-pass", "target-bob", "other-secret");
        policy.chap.put(LoginCaptures.TARGET, both);
        Logins.Run r = login(policy, NORMAL.withChap(both));
        assertSameParams(r);
        assertEquals(4, r.requests());
    }

    @Test
    void discoveryWithChap() {
        TestPolicy policy = TestPolicy.lio();
        policy.chap.put("discovery", new ChapSecrets("disc", "disc-secret1"));
        Logins.Run r = login(policy, InitiatorLoginParams.discovery(LoginCaptures.INITIATOR, 1)
                .withChap(new ChapSecrets("disc", "disc-secret1")));
        assertSameParams(r);
    }

    @Test
    void wrongPasswordIsAnAuthenticationFailureOnBothSides() {
        TestPolicy policy = chap(new ChapSecrets("alice", "s3cret-pass"));
        Logins.Run r = login(policy, NORMAL.withChap(new ChapSecrets("alice", "wrong-pass")));
        Logins.assertRefused(LoginStatus.AUTHENTICATION_FAILURE, r.target());
        assertEquals(LoginStep.State.FAILED, r.initiator().state());
        assertTrue(r.initiator().failure().contains("0x0201"), r.initiator().failure());
    }

    @Test
    void wrongUserIsAnAuthenticationFailure() {
        TestPolicy policy = chap(new ChapSecrets("alice", "s3cret-pass"));
        Logins.Run r = login(policy, NORMAL.withChap(new ChapSecrets("mallory", "s3cret-pass")));
        Logins.assertRefused(LoginStatus.AUTHENTICATION_FAILURE, r.target());
    }

    @Test
    void noChapToATargetThatRequiresItIsRefused() {
        TestPolicy policy = chap(new ChapSecrets("alice", "s3cret-pass"));
        Logins.Run r = login(policy, NORMAL);
        Logins.assertRefused(LoginStatus.AUTHENTICATION_FAILURE, r.target());
        assertEquals(1, r.requests());
    }

    @Test
    void initiatorRefusesATargetThatFailsMutualChap() {
        TestPolicy policy = chap(new ChapSecrets("alice", "s3cret-pass", "target-bob", "forged"));
        Logins.Run r = login(policy, NORMAL.withChap(
                new ChapSecrets("alice", "s3cret-pass", "target-bob", "other-secret")));
        assertEquals(LoginStep.State.CONTINUE, r.target().state());
        assertEquals(LoginStep.State.FAILED, r.initiator().state());
        assertTrue(r.initiator().failure().contains("mutual CHAP"), r.initiator().failure());
    }

    @Test
    void mutualChapToATargetWithoutAMutualSecretIsRefused() {
        TestPolicy policy = chap(new ChapSecrets("alice", "s3cret-pass"));
        Logins.Run r = login(policy, NORMAL.withChap(
                new ChapSecrets("alice", "s3cret-pass", "target-bob", "other-secret")));
        Logins.assertRefused(LoginStatus.AUTHENTICATION_FAILURE, r.target());
    }

    @Test
    void initiatorWithChapTakesAuthMethodNoneFromATargetWithout() {
        Logins.Run r = login(TestPolicy.lio(), NORMAL.withChap(new ChapSecrets("alice", "s3cret-pass")));
        assertSameParams(r);
        assertEquals(2, r.requests());
    }
}
