package org.jrdma.ulp.iser.login;

import static org.jrdma.ulp.iser.login.Logins.FFP;
import static org.jrdma.ulp.iser.login.Logins.OP;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.junit.jupiter.api.Test;

/** The initiator's handling of target answers: checks against its offers, refusals, C=1, stays in a stage. */
class InitiatorLoginTest {
    private static final int STATSN = 0x1000;

    private static InitiatorLogin started() {
        InitiatorLogin login = InitiatorLogins.create(
                InitiatorLoginParams.normal(LoginCaptures.INITIATOR, LoginCaptures.TARGET, Logins.ISID));
        login.start();
        return login;
    }

    private static IscsiPdu response(LoginStages stages, int tsih, LoginStatus status, byte[] data) {
        return new IscsiPdu(new LoginResponse(stages, 0, 0, Logins.ISID, tsih, 0, new TargetSn(STATSN, 0, 0),
                status), data);
    }

    private static IscsiPdu last(String... kv) {
        return response(new LoginStages(true, false, OP, FFP), 3, LoginStatus.SUCCESS, TextKeys.of(kv).encode());
    }

    private static void assertFails(String why, LoginStep step) {
        assertEquals(LoginStep.State.FAILED, step.state());
        assertTrue(step.failure().contains(why), step.failure());
    }

    @Test
    void refusalCarriesTheStatus() {
        LoginStep step = started().onResponse(
                response(new LoginStages(false, false, OP, OP), 0, LoginStatus.TARGET_NOT_FOUND, new byte[0]));
        assertFails("0x0203", step);
        assertFails("TARGET_NOT_FOUND", step);
    }

    @Test
    void answersMustFitTheOffers() {
        assertFails("MaxBurstLength", started().onResponse(last("TargetPortalGroupTag", "1",
                "MaxBurstLength", "16777215")));
        // open-iscsi offers DataPDUInOrder=Yes (OR): No cannot be the result
        assertFails("DataPDUInOrder", started().onResponse(last("TargetPortalGroupTag", "1",
                "ImmediateData", "No", "InitialR2T", "Yes", "DataPDUInOrder", "No")));
        assertFails("DefaultTime2Wait", started().onResponse(last("DefaultTime2Wait", "1")));
    }

    @Test
    void rejectedAndNotUnderstoodAnswersLeaveTheDefault() {
        LoginStep step = started().onResponse(last("TargetPortalGroupTag", "1", "MaxBurstLength", "Reject",
                "FirstBurstLength", "NotUnderstood", "RDMAExtensions", "Yes"));
        assertEquals(LoginStep.State.FULL_FEATURE, step.state(), step.failure());
        assertEquals(262144, step.params().maxBurstLength());
        assertEquals(65536, step.params().firstBurstLength());
        assertEquals(STATSN, step.params().statSn());
        assertEquals(3, step.params().tsih());
    }

    @Test
    void finalResponseWithoutTsihFails() {
        assertFails("TSIH", started().onResponse(
                response(new LoginStages(true, false, OP, FFP), 0, LoginStatus.SUCCESS, new byte[0])));
    }

    @Test
    void responseForAnotherIsidFails() {
        IscsiPdu other = new IscsiPdu(new LoginResponse(new LoginStages(true, false, OP, FFP), 0, 0, 0x77, 1, 0,
                new TargetSn(1, 0, 0), LoginStatus.SUCCESS), new byte[0]);
        assertFails("ISID", started().onResponse(other));
    }

    @Test
    void malformedKeysFailWithoutException() {
        IscsiPdu bad = response(new LoginStages(true, false, OP, FFP), 1, LoginStatus.SUCCESS,
                "MaxBurstLength\0".getBytes(StandardCharsets.US_ASCII));
        assertFails("0x0200", started().onResponse(bad));
        assertFails("not allowed", started().onResponse(last("AuthMethod", "None")));
        assertFails("twice", started().onResponse(last("TargetAlias", "a", "TargetAlias", "b")));
    }

    @Test
    void targetStayingInTheStageGetsAnotherRequestWithAnswersToItsOffers() throws Exception {
        InitiatorLogin login = started();
        LoginStep step = login.onResponse(response(new LoginStages(false, false, OP, OP), 0, LoginStatus.SUCCESS,
                TextKeys.of("TargetPortalGroupTag", "1", "MaxBurstLength", "65536", "DataDigest", "None").encode()));
        assertEquals(LoginStep.State.CONTINUE, step.state(), step.failure());
        LoginRequest next = (LoginRequest) step.reply().header();
        assertEquals(new LoginStages(true, false, OP, FFP), next.stages());
        assertEquals(STATSN + 1, next.sn().expStatSn());
        // MaxBurstLength was offered: the answer is recorded, not answered; DataDigest is the target's offer
        assertEquals(Map.of("DataDigest", "None"), LoginCaptures.keys(step.reply()));
        LoginStep done = login.onResponse(last());
        assertEquals(LoginStep.State.FULL_FEATURE, done.state(), done.failure());
        assertEquals(65536, done.params().maxBurstLength());
        assertEquals(1, done.params().targetPortalGroupTag());
    }

    @Test
    void continuedResponseTextIsJoined() {
        InitiatorLogin login = started();
        byte[] all = TextKeys.of("TargetPortalGroupTag", "1", "TargetAlias", "LIO Target", "MaxBurstLength",
                "131072", "RDMAExtensions", "Yes").encode();
        LoginStep step = login.onResponse(response(new LoginStages(false, true, OP, OP), 0, LoginStatus.SUCCESS,
                Arrays.copyOf(all, 20)));
        assertEquals(LoginStep.State.CONTINUE, step.state(), step.failure());
        LoginRequest ask = (LoginRequest) step.reply().header();
        assertEquals(new LoginStages(false, false, OP, OP), ask.stages());
        assertArrayEquals(new byte[0], step.reply().data());
        LoginStep done = login.onResponse(response(new LoginStages(true, false, OP, FFP), 2, LoginStatus.SUCCESS,
                Arrays.copyOfRange(all, 20, all.length)));
        assertEquals(LoginStep.State.FULL_FEATURE, done.state(), done.failure());
        assertEquals("LIO Target", done.params().targetAlias());
        assertEquals(131072, done.params().maxBurstLength());
    }

    @Test
    void chapSecurityStageFirst() throws Exception {
        InitiatorLogin login = InitiatorLogins.create(InitiatorLoginParams.normal(LoginCaptures.INITIATOR,
                LoginCaptures.TARGET, Logins.ISID).withChap(new ChapSecrets("alice", "pw")));
        IscsiPdu first = login.start();
        LoginRequest h = (LoginRequest) first.header();
        assertEquals(new LoginStages(true, false, LoginStage.SECURITY_NEGOTIATION, OP), h.stages());
        assertEquals("CHAP,None", LoginCaptures.keys(first).get("AuthMethod"));
        assertTrue(!LoginCaptures.keys(first).containsKey("MaxBurstLength"));
    }

    @Test
    void anotherPduOrAResponseAfterTheEndFails() {
        InitiatorLogin login = started();
        assertEquals(LoginStep.State.FULL_FEATURE, login.onResponse(last("TargetPortalGroupTag", "1")).state());
        assertFails("out of a login", login.onResponse(last()));
    }
}
