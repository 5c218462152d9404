package org.jrdma.ulp.iser.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The key table's rows against RFC 7143 section 13 and RFC 7145 section 6. */
class LoginKeyTableTest {

    @ParameterizedTest
    @CsvSource({
        "AuthMethod, LIST, CONNECTION, SECURITY, BOTH, false, None",
        "HeaderDigest, LIST, CONNECTION, OPERATIONAL, BOTH, false, None",
        "DataDigest, LIST, CONNECTION, OPERATIONAL, BOTH, false, None",
        "MaxConnections, MIN, SESSION, OPERATIONAL, BOTH, true, 1",
        "InitialR2T, OR, SESSION, OPERATIONAL, BOTH, true, Yes",
        "ImmediateData, AND, SESSION, OPERATIONAL, BOTH, true, Yes",
        "MaxRecvDataSegmentLength, DECLARATIVE, CONNECTION, OPERATIONAL, BOTH, false, 8192",
        "MaxBurstLength, MIN, SESSION, OPERATIONAL, BOTH, true, 262144",
        "FirstBurstLength, MIN, SESSION, OPERATIONAL, BOTH, true, 65536",
        "DefaultTime2Wait, MAX, SESSION, OPERATIONAL, BOTH, true, 2",
        "DefaultTime2Retain, MIN, SESSION, OPERATIONAL, BOTH, true, 20",
        "MaxOutstandingR2T, MIN, SESSION, OPERATIONAL, BOTH, true, 1",
        "DataPDUInOrder, OR, SESSION, OPERATIONAL, BOTH, true, Yes",
        "DataSequenceInOrder, OR, SESSION, OPERATIONAL, BOTH, true, Yes",
        "ErrorRecoveryLevel, MIN, SESSION, OPERATIONAL, BOTH, true, 0",
        "SessionType, DECLARATIVE, SESSION, ANY, INITIATOR, true, Normal",
        "InitiatorName, DECLARATIVE, SESSION, ANY, INITIATOR, true, ",
        "TargetName, DECLARATIVE, SESSION, ANY, BOTH, true, ",
        "TargetAlias, DECLARATIVE, SESSION, ANY, TARGET, false, ",
        "InitiatorAlias, DECLARATIVE, SESSION, ANY, INITIATOR, false, ",
        "TargetAddress, DECLARATIVE, SESSION, ANY, TARGET, false, ",
        "TargetPortalGroupTag, DECLARATIVE, SESSION, ANY, TARGET, false, ",
        "SendTargets, DECLARATIVE, SESSION, FULL_FEATURE, INITIATOR, false, ",
        "RDMAExtensions, AND, SESSION, OPERATIONAL, BOTH, true, No",
        "InitiatorRecvDataSegmentLength, MIN, CONNECTION, OPERATIONAL, BOTH, false, 8192",
        "TargetRecvDataSegmentLength, MIN, CONNECTION, OPERATIONAL, BOTH, false, 8192",
        "MaxOutstandingUnexpectedPDUs, MIN_ZERO_UNLIMITED, SESSION, OPERATIONAL, BOTH, true, 0",
        "CHAP_A, CHAP, CONNECTION, SECURITY, BOTH, false, ",
        "CHAP_I, CHAP, CONNECTION, SECURITY, BOTH, false, ",
        "CHAP_C, CHAP, CONNECTION, SECURITY, BOTH, false, ",
        "CHAP_N, CHAP, CONNECTION, SECURITY, BOTH, false, ",
        "CHAP_R, CHAP, CONNECTION, SECURITY, BOTH, false, ",
    })
    void row(String name, KeyRule rule, LoginKey.Scope scope, LoginKey.Stage stage, LoginKey.Sender sender,
            boolean leadingOnly, String defaultValue) {
        LoginKey k = LoginKey.of(name).orElseThrow();
        assertEquals(List.of(rule, scope, stage, sender, leadingOnly),
                List.of(k.rule(), k.scope(), k.stage(), k.sender(), k.leadingOnly()), name);
        assertEquals(defaultValue, k.defaultValue(), name);
    }

    @ParameterizedTest
    @EnumSource(LoginKey.class)
    void numericDefaultsLieInTheirRange(LoginKey k) {
        if (k.numeric() && k.defaultValue() != null) {
            assertTrue(KeyAnswer.parse(k, k.defaultValue()) >= 0, k.key());
        }
    }

    @Test
    void lengthsAreRfcRanges() {
        for (LoginKey k : List.of(LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH, LoginKey.MAX_BURST_LENGTH,
                LoginKey.FIRST_BURST_LENGTH, LoginKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH,
                LoginKey.TARGET_RECV_DATA_SEGMENT_LENGTH)) {
            assertEquals(List.of(512L, 16777215L), List.of(k.min(), k.max()), k.key());
        }
        assertEquals(List.of(0L, 3600L), List.of(LoginKey.DEFAULT_TIME2WAIT.min(), LoginKey.DEFAULT_TIME2WAIT.max()));
        assertEquals(2L, LoginKey.ERROR_RECOVERY_LEVEL.max());
    }

    @Test
    void stagesAndIrrelevance() {
        assertTrue(LoginKey.AUTH_METHOD.allowedIn(LoginStage.SECURITY_NEGOTIATION));
        assertFalse(LoginKey.AUTH_METHOD.allowedIn(LoginStage.LOGIN_OPERATIONAL_NEGOTIATION));
        assertFalse(LoginKey.SEND_TARGETS.allowedIn(LoginStage.LOGIN_OPERATIONAL_NEGOTIATION));
        assertTrue(LoginKey.TARGET_NAME.allowedIn(LoginStage.SECURITY_NEGOTIATION));
        assertTrue(LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH.irrelevantFor(false, true));
        assertTrue(LoginKey.TARGET_RECV_DATA_SEGMENT_LENGTH.irrelevantFor(false, false));
        assertTrue(LoginKey.MAX_BURST_LENGTH.irrelevantFor(true, false));
        assertFalse(LoginKey.DEFAULT_TIME2WAIT.irrelevantFor(true, false));
        assertTrue(LoginKey.of("X-com.example.x").isEmpty());
        assertEquals(Arrays.stream(LoginKey.values()).map(LoginKey::key).distinct().count(), LoginKey.values().length);
    }
}
