package org.jrdma.ulp.iser.login;

import static org.jrdma.ulp.iser.login.Logins.FFP;
import static org.jrdma.ulp.iser.login.Logins.OP;
import static org.jrdma.ulp.iser.login.Logins.SEC;
import static org.jrdma.ulp.iser.login.Logins.assertRefused;
import static org.jrdma.ulp.iser.login.Logins.normal;
import static org.jrdma.ulp.iser.login.Logins.request;
import static org.jrdma.ulp.iser.login.Logins.target;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.NopOut;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.junit.jupiter.api.Test;

/** Every refusal the target gives, with its status class/detail, and malformed input: never an exception. */
class TargetLoginRefusalTest {

    @Test
    void missingInitiatorNameIs0207() {
        assertRefused(LoginStatus.MISSING_PARAMETER, target(TestPolicy.lio(),
                request(OP, FFP, "TargetName", LoginCaptures.TARGET, "SessionType", "Normal")));
    }

    @Test
    void normalSessionWithoutTargetNameIs0207() {
        assertRefused(LoginStatus.MISSING_PARAMETER, target(TestPolicy.lio(),
                request(OP, FFP, "InitiatorName", LoginCaptures.INITIATOR, "SessionType", "Normal")));
    }

    @Test
    void emptyNamesAreMissing() {
        assertRefused(LoginStatus.MISSING_PARAMETER, target(TestPolicy.lio(), request(OP, FFP,
                "InitiatorName", "", "TargetName", LoginCaptures.TARGET)));
        assertRefused(LoginStatus.MISSING_PARAMETER, target(TestPolicy.lio(), request(OP, FFP,
                "InitiatorName", LoginCaptures.INITIATOR, "TargetName", "")));
    }

    @Test
    void noTsihLeftIs0302() {
        TestPolicy policy = TestPolicy.lio();
        policy.nextTsih = 0;
        assertRefused(LoginStatus.OUT_OF_RESOURCES, target(policy, request(OP, FFP, normal())));
    }

    @Test
    void aFailingConfigurationIs0300NotAnException() {
        TestPolicy policy = new TestPolicy() {
            @Override
            public boolean allows(String initiatorName, String targetName) {
                throw new IllegalStateException("ACL store gone");
            }
        };
        policy.targets.put(LoginCaptures.TARGET, 1);
        assertRefused(LoginStatus.TARGET_ERROR, target(policy, request(OP, FFP, normal())));
    }

    @Test
    void unknownTargetIs0203() {
        assertRefused(LoginStatus.TARGET_NOT_FOUND, target(TestPolicy.lio(), request(OP, FFP,
                "InitiatorName", LoginCaptures.INITIATOR, "TargetName", "iqn.2003-01.org.example:nope")));
    }

    @Test
    void initiatorOutsideTheAclIs0202() {
        TestPolicy policy = TestPolicy.lio();
        policy.acl.clear();
        policy.acl.add("iqn.1994-05.com.redhat:someone-else");
        assertRefused(LoginStatus.AUTHORIZATION_FAILURE, target(policy, request(OP, FFP, normal())));
    }

    @Test
    void unknownTsihIs020aAndAKnownOneIs0206() {
        byte[] keys = TextKeys.of(normal()).encode();
        LoginStages opToFfp = new LoginStages(true, false, OP, FFP);
        assertRefused(LoginStatus.SESSION_DOES_NOT_EXIST, target(TestPolicy.lio(), request(opToFfp, 0, 7, keys)));
        TestPolicy policy = TestPolicy.lio();
        policy.existingSession = true;
        assertRefused(LoginStatus.TOO_MANY_CONNECTIONS, target(policy, request(opToFfp, 0, 7, keys)));
    }

    @Test
    void versionMinAboveZeroIs0205() {
        LoginStep step = target(TestPolicy.lio(),
                request(new LoginStages(true, false, OP, FFP), 1, 0, TextKeys.of(normal()).encode()));
        assertRefused(LoginStatus.UNSUPPORTED_VERSION, step);
    }

    @Test
    void unknownSessionTypeIs0209() {
        assertRefused(LoginStatus.SESSION_TYPE_NOT_SUPPORTED, target(TestPolicy.lio(), request(OP, FFP,
                "InitiatorName", LoginCaptures.INITIATOR, "SessionType", "Bogus")));
    }

    @Test
    void anotherPduDuringTheLoginIs020bWithoutReply() {
        IscsiPdu nop = new IscsiPdu(new NopOut(true, 0, 1, Reject.RESERVED_TAG, new InitiatorSn(0, 0)),
                new byte[0]);
        LoginStep step = TargetLogins.create(TestPolicy.lio(), Logins.PORTAL).onRequest(nop);
        assertEquals(LoginStep.State.FAILED, step.state());
        assertNull(step.reply());
        assertEquals(true, step.failure().contains("0x020b"), step.failure());
    }

    @Test
    void keyWithoutEqualsSignIs0200() {
        byte[] data = "InitiatorName=iqn.x\0TargetName\0".getBytes(StandardCharsets.US_ASCII);
        assertRefused(LoginStatus.INITIATOR_ERROR,
                target(TestPolicy.lio(), request(new LoginStages(true, false, OP, FFP), 0, 0, data)));
    }

    @Test
    void textWithoutFinalNulIs0200() {
        byte[] data = "InitiatorName=iqn.x".getBytes(StandardCharsets.US_ASCII);
        assertRefused(LoginStatus.INITIATOR_ERROR,
                target(TestPolicy.lio(), request(new LoginStages(true, false, OP, FFP), 0, 0, data)));
    }

    @Test
    void endlessContinuedTextIs0200() {
        TargetLogin login = TargetLogins.create(TestPolicy.lio(), Logins.PORTAL);
        byte[] chunk = new byte[8192];
        Arrays.fill(chunk, (byte) 'a');
        LoginStep step = null;
        for (int i = 0; i < 9 && (step == null || step.state() == LoginStep.State.CONTINUE); i++) {
            step = login.onRequest(request(new LoginStages(false, true, OP, OP), 0, 0, chunk));
        }
        assertRefused(LoginStatus.INITIATOR_ERROR, step);
        assertEquals(true, step.failure().contains("65536"), step.failure());
    }

    @Test
    void duplicateKeyIs0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(OP, FFP, normal("MaxBurstLength", "65536", "MaxBurstLength", "8192"))));
    }

    @Test
    void keyRepeatedInALaterPduIs0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(OP, OP, normal("MaxBurstLength", "65536")), request(OP, FFP, "MaxBurstLength", "8192")));
    }

    @Test
    void valueOverItsLengthIs0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(OP, FFP, normal("InitiatorAlias", "a".repeat(256)))));
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(), request(OP, FFP,
                "InitiatorName", "iqn." + "x".repeat(220), "SessionType", "Discovery")));
    }

    @Test
    void operationalKeyInTheSecurityStageIs0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(SEC, OP, normal("AuthMethod", "None", "HeaderDigest", "None"))));
    }

    @Test
    void authMethodInTheOperationalStageIs0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(OP, FFP, normal("AuthMethod", "None"))));
    }

    @Test
    void sendTargetsDuringTheLoginIs0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(OP, FFP, normal("SendTargets", "All"))));
    }

    @Test
    void targetOnlyKeyFromTheInitiatorIs0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(OP, FFP, normal("TargetPortalGroupTag", "1"))));
    }

    @Test
    void chapKeysWithoutChapAre0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(SEC, OP, normal("AuthMethod", "None", "CHAP_A", "5"))));
    }

    @Test
    void fullFeatureAsCurrentStageIs0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(new LoginStages(true, false, FFP, FFP), 0, 0, TextKeys.of(normal()).encode())));
    }

    @Test
    void transitAndContinueTogetherAre0200() {
        assertRefused(LoginStatus.INITIATOR_ERROR, target(TestPolicy.lio(),
                request(new LoginStages(true, true, OP, FFP), 0, 0, TextKeys.of(normal()).encode())));
    }

    @Test
    void goingBackToTheSecurityStageIs0200() {
        LoginStep step = target(TestPolicy.lio(), request(SEC, OP, normal("AuthMethod", "None")),
                request(SEC, OP));
        assertRefused(LoginStatus.INITIATOR_ERROR, step);
    }

    @Test
    void aRequestAfterTheLoginEndedIs0200() {
        LoginStep step = target(TestPolicy.lio(), request(OP, FFP, normal()), request(OP, FFP));
        assertRefused(LoginStatus.INITIATOR_ERROR, step);
    }

    @Test
    void changingTheIsidMidLoginIs0200() {
        TargetLogin login = TargetLogins.create(TestPolicy.lio(), Logins.PORTAL);
        login.onRequest(request(OP, OP, normal()));
        IscsiPdu other = new IscsiPdu(new LoginRequest(new LoginStages(true, false, OP, FFP),
                0, 0, 0x1234, 0, 0, 0, new InitiatorSn(0, 0)), new byte[0]);
        LoginStep step = login.onRequest(other);
        assertEquals(LoginStep.State.FAILED, step.state());
        assertEquals(LoginStatus.INITIATOR_ERROR, Logins.header(step).status());
    }

    @Test
    void skippingTheSecurityStageWhenChapIsRequiredIs0201() {
        TestPolicy policy = TestPolicy.lio();
        policy.chap.put(LoginCaptures.TARGET, new ChapSecrets("alice", "s3cret-pass"));
        assertRefused(LoginStatus.AUTHENTICATION_FAILURE, target(policy, request(OP, FFP, normal())));
        assertRefused(LoginStatus.AUTHENTICATION_FAILURE, target(policy, request(SEC, OP, normal())));
        assertRefused(LoginStatus.AUTHENTICATION_FAILURE,
                target(policy, request(SEC, OP, normal("AuthMethod", "None"))));
    }

    @Test
    void chapWithoutMd5Is0201() {
        TestPolicy policy = TestPolicy.lio();
        policy.chap.put(LoginCaptures.TARGET, new ChapSecrets("alice", "s3cret-pass"));
        LoginStep step = target(policy, request(SEC, OP, normal("AuthMethod", "CHAP")),
                request(SEC, SEC, "CHAP_A", "7,6"));
        assertRefused(LoginStatus.AUTHENTICATION_FAILURE, step);
    }

    @Test
    void malformedChapResponseIs0201() {
        TestPolicy policy = TestPolicy.lio();
        policy.chap.put(LoginCaptures.TARGET, new ChapSecrets("alice", "s3cret-pass"));
        LoginStep step = target(policy, request(SEC, OP, normal("AuthMethod", "CHAP")),
                request(SEC, SEC, "CHAP_A", "5"), request(SEC, OP, "CHAP_N", "alice", "CHAP_R", "0xzz"));
        assertRefused(LoginStatus.AUTHENTICATION_FAILURE, step);
    }
}
