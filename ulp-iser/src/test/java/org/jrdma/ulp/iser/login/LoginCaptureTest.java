package org.jrdma.ulp.iser.login;

import static org.jrdma.ulp.iser.login.LoginCaptures.keys;
import static org.jrdma.ulp.iser.login.LoginCaptures.pdu;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetSocketAddress;
import org.jrdma.ulp.iser.login.SessionParams.SessionType;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.junit.jupiter.api.Test;

/**
 * The Linux captures against both state machines: open-iscsi's Login Requests into our target (answers compared
 * with LIO's), LIO's responses into our initiator, and our initiator's first request against open-iscsi's.
 */
class LoginCaptureTest {
    static final InetSocketAddress PORTAL = new InetSocketAddress("192.0.2.11", 3260);

    private static InitiatorLoginParams openIscsi(SessionType type) {
        return new InitiatorLoginParams(LoginCaptures.INITIATOR, "rxepeer",
                type == SessionType.NORMAL ? LoginCaptures.TARGET : null, type,
                type == SessionType.NORMAL ? LoginCaptures.SESSION_ISID : LoginCaptures.DISCOVERY_ISID, 0, 0, null,
                OperationalProposals.openIscsiIser());
    }

    @Test
    void targetAnswersOpenIscsisIserLoginAsLioDoes() throws Exception {
        IscsiPdu lio = pdu("iser_session", 6);
        LoginStep step = TargetLogins.create(TestPolicy.lio(), PORTAL).onRequest(pdu("iser_session", 4));
        assertEquals(LoginStep.State.FULL_FEATURE, step.state(), step.failure());
        // the whole header: stages, ISID, TSIH 1, ITT, StatSN/ExpCmdSN/MaxCmdSN, status
        assertEquals(lio.header(), step.reply().header());
        // the same 16 keys and values; only the order differs (LIO walks its parameter list, we answer in the
        // order offered with the declarations last)
        assertEquals(keys(lio), keys(step.reply()));
        SessionParams s = step.params();
        assertEquals(SessionType.NORMAL, s.sessionType());
        assertEquals(1, s.tsih());
        assertEquals(262144, s.maxBurstLength());
        assertEquals(65536, s.firstBurstLength());
        assertEquals(262144, s.initiatorRecvDataSegmentLength());
        assertEquals(8192, s.targetRecvDataSegmentLength());
        assertEquals(true, s.rdmaExtensions() && s.initialR2t() && s.immediateData());
        assertEquals(LoginCaptures.SESSION_STATSN, s.statSn());
        assertEquals("rxepeer", s.initiatorAlias());
    }

    @Test
    void targetAnswersOpenIscsisDiscoveryLoginAsLioDoes() throws Exception {
        IscsiPdu lio = pdu("iser_discovery", 6);
        TestPolicy policy = TestPolicy.lio();
        policy.statSn = ((LoginResponse) lio.header()).sn().statSn();
        LoginStep step = TargetLogins.create(policy, PORTAL).onRequest(pdu("iser_discovery", 4));
        assertEquals(LoginStep.State.FULL_FEATURE, step.state(), step.failure());
        assertEquals(lio.header(), step.reply().header());
        assertEquals(keys(lio), keys(step.reply()));
        assertEquals(SessionType.DISCOVERY, step.params().sessionType());
        assertNull(step.params().targetName());
        assertEquals(8192, step.params().initiatorRecvDataSegmentLength());
        assertEquals(262144, step.params().targetRecvDataSegmentLength());
    }

    @Test
    void initiatorSendsWhatOpenIscsiSendsOverIser() throws Exception {
        IscsiPdu captured = pdu("iser_session", 4);
        IscsiPdu ours = InitiatorLogins.create(openIscsi(SessionType.NORMAL)).start();
        assertEquals(captured.header(), ours.header());
        assertArrayEquals(captured.data(), ours.data());
    }

    @Test
    void initiatorSendsWhatOpenIscsiSendsForDiscovery() throws Exception {
        IscsiPdu captured = pdu("iser_discovery", 4);
        IscsiPdu ours = InitiatorLogins.create(openIscsi(SessionType.DISCOVERY)).start();
        assertEquals(((LoginRequest) captured.header()).stages(), ((LoginRequest) ours.header()).stages());
        assertArrayEquals(captured.data(), ours.data());
    }

    /** Our initiator's step after LIO's response at {@code frame} of {@code capture}. */
    private static LoginStep afterLio(SessionType type, String capture, int frame) throws Exception {
        InitiatorLogin login = InitiatorLogins.create(openIscsi(type));
        login.start();
        LoginStep step = login.onResponse(pdu(capture, frame));
        assertEquals(LoginStep.State.FULL_FEATURE, step.state(), step.failure());
        return step;
    }

    @Test
    void initiatorTakesLiosAnswers() throws Exception {
        LoginStep step = afterLio(SessionType.NORMAL, "iser_session", 6);
        assertNull(step.reply());
        SessionParams s = step.params();
        assertEquals(1, s.tsih());
        assertEquals(1, s.targetPortalGroupTag());
        assertEquals("LIO Target", s.targetAlias());
        assertEquals(262144, s.maxBurstLength());
        assertEquals(65536, s.firstBurstLength());
        assertEquals(262144, s.initiatorRecvDataSegmentLength());
        assertEquals(8192, s.targetRecvDataSegmentLength());
        assertEquals(true, s.rdmaExtensions() && s.initialR2t() && s.immediateData());
        assertEquals(true, s.dataPduInOrder() && s.dataSequenceInOrder());
        assertEquals(0, s.errorRecoveryLevel());
        assertEquals(2, s.defaultTime2Wait());
        assertEquals(0, s.defaultTime2Retain());
        assertEquals(LoginCaptures.SESSION_STATSN, s.statSn());
        // and the target side of the same exchange settles the same parameters
        LoginStep target = TargetLogins.create(TestPolicy.lio(), PORTAL).onRequest(pdu("iser_session", 4));
        assertEquals(target.params(), s);
    }

    @Test
    void initiatorTakesLiosDiscoveryAnswers() throws Exception {
        LoginStep step = afterLio(SessionType.DISCOVERY, "iser_discovery", 6);
        assertEquals(SessionType.DISCOVERY, step.params().sessionType());
        assertEquals(262144, step.params().targetRecvDataSegmentLength());
    }
}
