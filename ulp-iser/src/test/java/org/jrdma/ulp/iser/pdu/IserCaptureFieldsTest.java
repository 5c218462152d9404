package org.jrdma.ulp.iser.pdu;

import static org.jrdma.ulp.iser.pdu.IserGoldenCaptureTest.decode;
import static org.jrdma.ulp.iser.pdu.IserGoldenCaptureTest.sends;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The opcode-specific fields of the PDUs the README of the iSER captures walks through, as tshark decodes them. */
class IserCaptureFieldsTest {
    private static final LoginStages OPERATIONAL_TO_FULL_FEATURE = new LoginStages(true, false,
            LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE);

    private static IserPdu pdu(String capture, int frame) throws Exception {
        return decode(sends(capture).get(frame).payload());
    }

    @Test
    void loginRequestGoesFromOperationalToFullFeatureWithTheIserKeys() throws Exception {
        IscsiPdu pdu = pdu("iser_session", 4).pdu();
        LoginRequest login = (LoginRequest) pdu.header();
        assertEquals(new LoginRequest(OPERATIONAL_TO_FULL_FEATURE, 0, 0, 0x00023d000002L, 0, 0, 0,
                new InitiatorSn(0, 0)), login);
        TextKeys keys = TextKeys.decode(pdu.data());
        assertEquals(List.of("InitiatorName", "InitiatorAlias", "TargetName", "SessionType", "DefaultTime2Wait",
                "DefaultTime2Retain", "IFMarker", "OFMarker", "ErrorRecoveryLevel", "InitialR2T", "ImmediateData",
                "MaxBurstLength", "FirstBurstLength", "MaxOutstandingR2T", "MaxConnections", "DataPDUInOrder",
                "DataSequenceInOrder", "InitiatorRecvDataSegmentLength", "TargetRecvDataSegmentLength",
                "RDMAExtensions"), keys.keys().stream().map(TextKey::key).toList());
        assertEquals("iqn.1993-08.org.debian:01:rxepeer", keys.get("InitiatorName").orElseThrow());
        assertEquals(16776192, TextValue.numeric("MaxBurstLength", keys.get("MaxBurstLength").orElseThrow()));
        assertTrue(TextValue.bool("RDMAExtensions", keys.get("RDMAExtensions").orElseThrow()));
        assertFalse(TextValue.bool("InitialR2T", keys.get("InitialR2T").orElseThrow()));
        assertArrayEquals(pdu.data(), keys.encode());
    }

    @Test
    void loginResponseIsSuccessWithTsih1AndLiosKeys() throws Exception {
        IscsiPdu pdu = pdu("iser_session", 6).pdu();
        LoginResponse rsp = (LoginResponse) pdu.header();
        assertEquals(new LoginResponse(OPERATIONAL_TO_FULL_FEATURE, 0, 0, 0x00023d000002L, 1, 0,
                new TargetSn(0x5b9c6445, 0, 0), LoginStatus.SUCCESS), rsp);
        TextKeys keys = TextKeys.decode(pdu.data());
        assertEquals(16, keys.keys().size());
        assertEquals("LIO Target", keys.get("TargetAlias").orElseThrow());
        assertEquals("8192", keys.get("TargetRecvDataSegmentLength").orElseThrow());
    }

    @Test
    void writeCarriesWsvWriteStagVaAndEightKibOfImmediateData() throws Exception {
        IserPdu pdu = pdu("iser_session", 236);
        assertEquals(new IserHeader(true, false, 0x15e1, 0xff420a26cecbc000L, 0, 0), pdu.iser());
        assertEquals(0x18, pdu.iser().flags());
        ScsiCommand cmd = (ScsiCommand) pdu.pdu().header();
        assertEquals(new ScsiCommand(false, true, false, true, TaskAttribute.SIMPLE, 0, 0x26000000, 65536,
                new InitiatorSn(0x25, 0x5b9c646b), HexFormat.of().parseHex("2a000000080000008000000000000000")), cmd);
        assertEquals(8192, pdu.pdu().data().length);
        // the pattern names the absolute LBA of each sector: the immediate data is LBA 2048 on
        assertTrue(new String(pdu.pdu().data(), 0, 24, java.nio.charset.StandardCharsets.US_ASCII)
                .contains("lba 00002048"));
    }

    @Test
    void readCarriesRsvReadStagAndVa() throws Exception {
        IserPdu pdu = pdu("iser_session", 305);
        assertEquals(new IserHeader(false, true, 0, 0, 0x15e2, 0xff420a26ce6d9000L), pdu.iser());
        ScsiCommand cmd = (ScsiCommand) pdu.pdu().header();
        assertTrue(cmd.read() && !cmd.write() && cmd.fin());
        assertEquals(0x28, cmd.scsiOpcode());
        assertEquals(0x26, cmd.sn().cmdSn());
    }

    @Test
    void unsupportedOpcodeAnswersCheckConditionWithIllegalRequestSense() throws Exception {
        IscsiPdu pdu = pdu("iser_session", 173).pdu();
        ScsiResponse rsp = (ScsiResponse) pdu.header();
        assertEquals(new ScsiResponse(false, false, false, false, 0, ScsiResponse.CHECK_CONDITION, 0x1c000000, 0,
                new TargetSn(0x5b9c6461, 28, 91), 0, 0, 0), rsp);
        byte[] sense = pdu.data();
        assertEquals(98, sense.length);
        assertEquals(96, (sense[0] & 0xff) << 8 | sense[1] & 0xff, "SenseLength");
        assertEquals(0x70, sense[2] & 0x7f, "current error, fixed format");
        assertEquals(0x5, sense[2 + 2] & 0xf, "ILLEGAL REQUEST");
        assertEquals(0x20, sense[2 + 12] & 0xff, "INVALID COMMAND OPERATION CODE");
    }

    @Test
    void logoutClosesTheSession() throws Exception {
        assertEquals(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, 0x28000000, 0,
                new InitiatorSn(39, 0x5b9c646d)),
                pdu("iser_session", 374).pdu().header());
        assertEquals(new LogoutResponse(0, 0x28000000, new TargetSn(0x5b9c646d, 39, 102), 0, 0),
                pdu("iser_session", 376).pdu().header());
    }

    @Test
    void nopOutPingIsAnsweredByNopInWithTheSameItt() throws Exception {
        NopOut ping = (NopOut) pdu("iser_nopout", 236).pdu().header();
        NopIn pong = (NopIn) pdu("iser_nopout", 238).pdu().header();
        assertTrue(ping.immediate());
        assertEquals(0x26000000, ping.itt());
        assertEquals(Reject.RESERVED_TAG, ping.ttt());
        assertEquals(ping.itt(), pong.itt());
        assertEquals(Reject.RESERVED_TAG, pong.ttt());
        assertEquals(0x27000000, ((NopOut) pdu("iser_nopout", 240).pdu().header()).itt());
    }

    @Test
    void discoveryLoginAndSendTargets() throws Exception {
        IscsiPdu login = pdu("iser_discovery", 4).pdu();
        assertEquals(0x00023d000001L, ((LoginRequest) login.header()).isid());
        assertEquals("Discovery", TextKeys.decode(login.data()).get("SessionType").orElseThrow());
        assertTrue(TextKeys.decode(login.data()).get("RDMAExtensions").isEmpty());
        IscsiPdu rsp = pdu("iser_discovery", 6).pdu();
        assertEquals("262144", TextKeys.decode(rsp.data()).get("MaxRecvDataSegmentLength").orElseThrow());
        IscsiPdu text = pdu("iser_discovery", 8).pdu();
        TextRequest req = (TextRequest) text.header();
        assertTrue(req.fin() && !req.cont());
        assertEquals(Reject.RESERVED_TAG, req.ttt());
        assertEquals(List.of("All"), TextKeys.decode(text.data()).all("SendTargets"));
        IscsiPdu targets = pdu("iser_discovery", 10).pdu();
        TextResponse tr = (TextResponse) targets.header();
        assertTrue(tr.fin() && !tr.cont());
        assertEquals(new TargetSn(0x576be915, 2, 2), tr.sn());
        assertEquals(TextKeys.of("TargetName", "iqn.2003-01.org.linux-iscsi.rxepeer:iser",
                "TargetAddress", "192.0.2.11:3260,1"), TextKeys.decode(targets.data()));
    }
}
