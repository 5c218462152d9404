package org.jrdma.ulp.iser.login;

import static org.jrdma.ulp.iser.login.Logins.FFP;
import static org.jrdma.ulp.iser.login.Logins.OP;
import static org.jrdma.ulp.iser.login.Logins.SEC;
import static org.jrdma.ulp.iser.login.Logins.answers;
import static org.jrdma.ulp.iser.login.Logins.header;
import static org.jrdma.ulp.iser.login.Logins.normal;
import static org.jrdma.ulp.iser.login.Logins.request;
import static org.jrdma.ulp.iser.login.Logins.target;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.LoginStages;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.junit.jupiter.api.Test;

/** The target's answers per RFC 7143 section 6.2 / 13 and RFC 7145 section 6, one rule per test. */
class TargetNegotiationTest {

    private static LoginStep login(String... keys) {
        return target(TestPolicy.lio(), request(OP, FFP, normal(keys)));
    }

    private static Map<String, String> answered(String... keys) throws Exception {
        LoginStep step = login(keys);
        assertEquals(LoginStep.State.FULL_FEATURE, step.state(), step.failure());
        return answers(step);
    }

    @Test
    void numericMinimumAndMaximum() throws Exception {
        Map<String, String> a = answered("MaxBurstLength", "1048576", "FirstBurstLength", "4096",
                "DefaultTime2Wait", "5", "DefaultTime2Retain", "60", "MaxOutstandingR2T", "8");
        assertEquals("262144", a.get("MaxBurstLength"));
        assertEquals("4096", a.get("FirstBurstLength"));
        assertEquals("5", a.get("DefaultTime2Wait"), "max of 5 and 2");
        assertEquals("20", a.get("DefaultTime2Retain"), "min of 60 and 20");
        assertEquals("1", a.get("MaxOutstandingR2T"));
        SessionParams s = login("MaxBurstLength", "1048576", "FirstBurstLength", "4096", "DefaultTime2Wait", "5",
                "DefaultTime2Retain", "60").params();
        assertEquals(262144, s.maxBurstLength());
        assertEquals(4096, s.firstBurstLength());
        assertEquals(5, s.defaultTime2Wait());
        assertEquals(20, s.defaultTime2Retain());
    }

    @Test
    void firstBurstNeverExceedsMaxBurst() throws Exception {
        Map<String, String> a = answered("MaxBurstLength", "16384", "FirstBurstLength", "65536");
        assertEquals("16384", a.get("MaxBurstLength"));
        assertEquals("16384", a.get("FirstBurstLength"));
        assertEquals(16384, login("MaxBurstLength", "16384", "FirstBurstLength", "65536").params().firstBurstLength());
    }

    @Test
    void booleanAndOr() throws Exception {
        Map<String, String> a = answered("InitialR2T", "No", "ImmediateData", "No", "DataPDUInOrder", "No",
                "DataSequenceInOrder", "Yes");
        assertEquals("Yes", a.get("InitialR2T"), "OR with the target's Yes");
        assertEquals("No", a.get("ImmediateData"), "AND with the initiator's No");
        assertEquals("Yes", a.get("DataPDUInOrder"));
        assertFalse(a.containsKey("DataSequenceInOrder"), "OR offered Yes: the answer is optional, LIO omits it");
        SessionParams s = login("ImmediateData", "No", "DataPDUInOrder", "No").params();
        assertFalse(s.immediateData());
        assertTrue(s.dataPduInOrder() && s.initialR2t() && s.dataSequenceInOrder());
    }

    @Test
    void errorRecoveryLevelZeroAndOneConnection() throws Exception {
        Map<String, String> a = answered("ErrorRecoveryLevel", "2", "MaxConnections", "4");
        assertEquals("0", a.get("ErrorRecoveryLevel"));
        assertEquals("1", a.get("MaxConnections"));
    }

    @Test
    void digestsNoneOnly() throws Exception {
        assertEquals("None", answered("HeaderDigest", "CRC32C,None").get("HeaderDigest"));
        assertEquals("Reject", answered("HeaderDigest", "CRC32C").get("HeaderDigest"));
        assertEquals("Reject", answered("DataDigest", "CRC32C").get("DataDigest"));
    }

    @Test
    void outOfRangeAndNonNumericValuesAreRejected() throws Exception {
        Map<String, String> a = answered("MaxBurstLength", "100", "FirstBurstLength", "0x1000000",
                "MaxOutstandingR2T", "many", "ErrorRecoveryLevel", "3", "ImmediateData", "Maybe",
                "DefaultTime2Wait", "3601");
        assertEquals("Reject", a.get("MaxBurstLength"));
        assertEquals("Reject", a.get("FirstBurstLength"));
        assertEquals("Reject", a.get("MaxOutstandingR2T"));
        assertEquals("Reject", a.get("ErrorRecoveryLevel"));
        assertEquals("Reject", a.get("ImmediateData"));
        assertEquals("Reject", a.get("DefaultTime2Wait"));
        assertEquals(262144, login("MaxBurstLength", "100").params().maxBurstLength(), "rejected: the default");
    }

    @Test
    void hexNumbersAreNumbers() throws Exception {
        assertEquals("65536", answered("MaxBurstLength", "0x10000").get("MaxBurstLength"));
    }

    @Test
    void vendorAndUnknownKeysAreNotUnderstood() throws Exception {
        Map<String, String> a = answered("X-com.example.Feature", "On", "Futuristic", "1");
        assertEquals("NotUnderstood", a.get("X-com.example.Feature"));
        assertEquals("NotUnderstood", a.get("Futuristic"));
    }

    @Test
    void sessionKeysAreIrrelevantInADiscoverySession() throws Exception {
        LoginStep step = target(TestPolicy.lio(), request(OP, FFP, "InitiatorName", LoginCaptures.INITIATOR,
                "SessionType", "Discovery", "InitialR2T", "No", "MaxBurstLength", "65536", "MaxConnections", "1"));
        Map<String, String> a = answers(step);
        assertEquals("Irrelevant", a.get("InitialR2T"));
        assertEquals("Irrelevant", a.get("MaxBurstLength"));
        assertEquals("Irrelevant", a.get("MaxConnections"));
    }

    @Test
    void rdmaExtensionsDecideWhichLengthKeysApply() throws Exception {
        Map<String, String> iser = answered("MaxRecvDataSegmentLength", "65536",
                "InitiatorRecvDataSegmentLength", "131072", "RDMAExtensions", "Yes");
        assertEquals("Irrelevant", iser.get("MaxRecvDataSegmentLength"), "RFC 7145 6.2: with RDMAExtensions=Yes");
        assertEquals("131072", iser.get("InitiatorRecvDataSegmentLength"));
        assertEquals("8192", iser.get("TargetRecvDataSegmentLength"), "declared by the target");
        LoginStep tcp = login("MaxRecvDataSegmentLength", "65536", "InitiatorRecvDataSegmentLength", "131072");
        Map<String, String> a = answers(tcp);
        assertEquals("Irrelevant", a.get("InitiatorRecvDataSegmentLength"));
        assertEquals("262144", a.get("MaxRecvDataSegmentLength"), "the target's declaration");
        assertEquals(65536, tcp.params().initiatorRecvDataSegmentLength());
        assertEquals(262144, tcp.params().targetRecvDataSegmentLength());
        assertFalse(tcp.params().rdmaExtensions());
    }

    @Test
    void maxOutstandingUnexpectedPdusTakesTheSmallerLimitZeroBeingNone() throws Exception {
        assertEquals("16", answered("MaxOutstandingUnexpectedPDUs", "16", "RDMAExtensions", "Yes")
                .get("MaxOutstandingUnexpectedPDUs"));
        assertEquals(16, login("MaxOutstandingUnexpectedPDUs", "16", "RDMAExtensions", "Yes").params()
                .maxOutstandingUnexpectedPdus());
        assertEquals("Reject", answered("MaxOutstandingUnexpectedPDUs", "0x100000000", "RDMAExtensions", "Yes")
                .get("MaxOutstandingUnexpectedPDUs"));
    }

    @Test
    void securityStageWithAuthMethodNoneThenOperational() throws Exception {
        TargetLogin t = TargetLogins.create(TestPolicy.lio(), Logins.PORTAL);
        LoginStep sec = t.onRequest(request(SEC, OP, normal("AuthMethod", "CHAP,None")));
        assertEquals(LoginStep.State.CONTINUE, sec.state(), sec.failure());
        assertEquals(new LoginStages(true, false, SEC, OP), header(sec).stages());
        assertEquals(Map.of("TargetPortalGroupTag", "1", "AuthMethod", "None"), answers(sec));
        assertEquals(0, header(sec).tsih(), "the TSIH comes with the final response");
        LoginStep op = t.onRequest(request(OP, FFP, "MaxBurstLength", "65536"));
        assertEquals(LoginStep.State.FULL_FEATURE, op.state(), op.failure());
        assertEquals(1, header(op).tsih());
        assertEquals(header(sec).sn().statSn() + 1, header(op).sn().statSn(), "StatSN moves on per response");
        assertEquals(header(op).sn().statSn(), op.params().statSn());
    }

    @Test
    void staysInAStageWhileTheInitiatorAsks() throws Exception {
        TargetLogin t = TargetLogins.create(TestPolicy.lio(), Logins.PORTAL);
        LoginStep first = t.onRequest(request(OP, OP, normal("MaxBurstLength", "65536")));
        assertEquals(new LoginStages(false, false, OP, OP), header(first).stages());
        assertEquals(LoginStep.State.CONTINUE, first.state());
        LoginStep last = t.onRequest(request(OP, FFP, "ImmediateData", "No"));
        assertEquals(LoginStep.State.FULL_FEATURE, last.state(), last.failure());
        assertEquals(65536, last.params().maxBurstLength());
        assertFalse(last.params().immediateData());
    }

    @Test
    void continuedTextIsJoinedAcrossPdus() throws Exception {
        byte[] all = TextKeys.of(normal("MaxBurstLength", "65536", "RDMAExtensions", "Yes")).encode();
        int cut = 30; // inside the TargetName value
        IscsiPdu part1 = Logins.request(new LoginStages(false, true, OP, OP), 0, 0, Arrays.copyOf(all, cut));
        IscsiPdu part2 = Logins.request(new LoginStages(true, false, OP, FFP), 0, 0,
                Arrays.copyOfRange(all, cut, all.length));
        TargetLogin t = TargetLogins.create(TestPolicy.lio(), Logins.PORTAL);
        LoginStep empty = t.onRequest(part1);
        assertEquals(LoginStep.State.CONTINUE, empty.state(), empty.failure());
        assertArrayEquals(new byte[0], empty.reply().data());
        assertEquals(LoginStatus.SUCCESS, header(empty).status());
        LoginStep done = t.onRequest(part2);
        assertEquals(LoginStep.State.FULL_FEATURE, done.state(), done.failure());
        assertEquals(65536, done.params().maxBurstLength());
        assertEquals(LoginCaptures.TARGET, done.params().targetName());
    }

    @Test
    void specialValuesFromTheInitiatorLeaveTheDefault() throws Exception {
        Map<String, String> a = answered("MaxBurstLength", "Reject", "ImmediateData", "NotUnderstood");
        assertFalse(a.containsKey("MaxBurstLength"));
        assertEquals(262144, login("MaxBurstLength", "Irrelevant").params().maxBurstLength());
    }
}
