package org.jrdma.ulp.iser.pdu;

import static org.jrdma.ulp.iser.pdu.IserGoldenCaptureTest.sends;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Malformed input fails with an {@link IscsiProtocolException} naming the Reject reason, never anything else. */
class IscsiBadInputTest {

    private static void rejects(RejectReason reason, Executable decode) {
        assertEquals(reason, assertThrows(IscsiProtocolException.class, decode).reason());
    }

    private static byte[] loginSend() throws Exception {
        return sends("iser_session").get(4).payload();
    }

    private static IserPdu iser(byte[] payload) throws IscsiProtocolException {
        return IserPdu.decode(Unpooled.wrappedBuffer(payload), IscsiPdu.MAX_DATA_SEGMENT);
    }

    /** The BHS of the captured login request, with {@code offset} set to {@code value}. */
    private static byte[] loginWith(int offset, int value) throws Exception {
        byte[] p = loginSend();
        p[IserHeader.LENGTH + offset] = (byte) value;
        return p;
    }

    @Test
    void shortBuffersAreFramingErrors() throws Exception {
        rejects(RejectReason.PROTOCOL_ERROR, () -> IserHeader.decode(Unpooled.wrappedBuffer(new byte[27])));
        rejects(RejectReason.PROTOCOL_ERROR,
                () -> IscsiPdu.decode(Unpooled.wrappedBuffer(new byte[47]), IscsiPdu.Padding.REQUIRED, 8192));
        rejects(RejectReason.PROTOCOL_ERROR, () -> IserHello.decode(Unpooled.wrappedBuffer(new byte[] {0x20})));
        rejects(RejectReason.PROTOCOL_ERROR, () -> IserHelloReply.decode(Unpooled.wrappedBuffer(new byte[11])));
        rejects(RejectReason.PROTOCOL_ERROR, () -> Bhs.of(new byte[12]));
    }

    @Test
    void everyTruncationOfEveryCapturedPduFailsCleanly() throws Exception {
        for (RoceSendsView send : RoceSendsView.all()) {
            int whole = IserHeader.LENGTH + Bhs.LENGTH + iser(send.payload).pdu().data().length;
            for (int length = 0; length < whole; length++) {
                byte[] cut = Arrays.copyOf(send.payload, length);
                assertThrows(IscsiProtocolException.class, () -> iser(cut), send.name + " cut to " + length);
            }
        }
    }

    @Test
    void dataSegmentLengthPastTheSendOrOverTheLimit() throws Exception {
        byte[] p = loginSend();
        int dsl = IserHeader.LENGTH + 5;
        p[dsl + 1] = 0x10; // 477 -> 4573
        rejects(RejectReason.PROTOCOL_ERROR, () -> iser(p));
        rejects(RejectReason.PROTOCOL_ERROR,
                () -> IserPdu.decode(Unpooled.wrappedBuffer(loginSend()), 476));
        byte[] longer = Arrays.copyOf(loginSend(), loginSend().length + 4);
        rejects(RejectReason.PROTOCOL_ERROR, () -> iser(longer));
    }

    @Test
    void unknownOpcodesAreNotSupported() throws Exception {
        for (int op : new int[] {0x07, 0x0f, 0x1c, 0x1e, 0x27, 0x3c, 0x3e}) {
            rejects(RejectReason.CMD_NOT_SUPPORTED, () -> iser(loginWith(0, 0x40 | op)));
        }
        byte[] hello = loginSend();
        hello[0] = 0x50;
        rejects(RejectReason.PROTOCOL_ERROR, () -> iser(hello));
        hello[0] = 0x20;
        rejects(RejectReason.PROTOCOL_ERROR, () -> iser(hello));
    }

    @Test
    void reservedFieldValuesAreInvalidPduFields() throws Exception {
        rejects(RejectReason.INVALID_PDU_FIELD, () -> iser(loginWith(0, 0x03)));
        rejects(RejectReason.INVALID_PDU_FIELD, () -> iser(loginWith(1, 0x80 | 2 << 2 | 3)));
        byte[] cmd = sends("iser_session").get(8).payload();
        cmd[IserHeader.LENGTH + 1] = (byte) (cmd[IserHeader.LENGTH + 1] & ~7 | 5);
        rejects(RejectReason.INVALID_PDU_FIELD, () -> iser(cmd));
        byte[] rsp = sends("iser_session").get(6).payload();
        rsp[IserHeader.LENGTH + LoginResponse.STATUS_CLASS] = 4;
        rejects(RejectReason.INVALID_PDU_FIELD, () -> iser(rsp));
        Bhs tmf = Bhs.empty();
        new TaskMgmtRequest(true, TmfFunction.ABORT_TASK, 0, 1, 2, new InitiatorSn(3, 4), 5, 6).encode(tmf);
        byte[] bad = tmf.toByteArray();
        bad[1] = (byte) 0x80;
        rejects(RejectReason.INVALID_PDU_FIELD, () -> IscsiHeader.decode(Bhs.of(bad)));
        bad[0] = 0x3f;
        bad[2] = 0x01;
        rejects(RejectReason.PROTOCOL_ERROR, () -> IscsiHeader.decode(Bhs.of(bad)));
    }

    @Test
    void ahsThatDoesNotFitTotalAhsLength() throws Exception {
        byte[] p = Arrays.copyOf(loginSend(), loginSend().length + 8);
        System.arraycopy(p, IserHeader.LENGTH + Bhs.LENGTH, p, IserHeader.LENGTH + Bhs.LENGTH + 8,
                loginSend().length - IserHeader.LENGTH - Bhs.LENGTH);
        p[IserHeader.LENGTH + 4] = 2;
        byte[] ahs = {0, 9, 1, 0, 0, 0, 0, 0};
        System.arraycopy(ahs, 0, p, IserHeader.LENGTH + Bhs.LENGTH, 8);
        rejects(RejectReason.INVALID_PDU_FIELD, () -> iser(p));
        p[IserHeader.LENGTH + 4] = (byte) 200;
        rejects(RejectReason.PROTOCOL_ERROR, () -> iser(p));
    }

    @Test
    void malformedTextKeys() {
        String[] bad = {"InitiatorName=x", "NoEquals\0", "=value\0", "Bad Key=1\0", "k".repeat(64) + "=1\0",
            "A=1\0B\0"};
        for (String s : bad) {
            rejects(RejectReason.INVALID_PDU_FIELD, () -> TextKeys.decode(s.getBytes(StandardCharsets.UTF_8)));
        }
        rejects(RejectReason.INVALID_PDU_FIELD, () -> TextKeys.decode(new byte[] {'A', '=', (byte) 0xc3, 0}));
        byte[] huge = ("A=" + "x".repeat(TextKeys.MAX_VALUE + 1) + "\0").getBytes(StandardCharsets.US_ASCII);
        rejects(RejectReason.INVALID_PDU_FIELD, () -> TextKeys.decode(huge));
        rejects(RejectReason.INVALID_PDU_FIELD, () -> TextValue.numeric("MaxBurstLength", "abc"));
        rejects(RejectReason.INVALID_PDU_FIELD, () -> TextValue.numeric("MaxBurstLength", "0x"));
        rejects(RejectReason.INVALID_PDU_FIELD, () -> TextValue.numeric("MaxBurstLength", "-1"));
        rejects(RejectReason.INVALID_PDU_FIELD, () -> TextValue.numeric("MaxBurstLength", "18446744073709551616"));
        rejects(RejectReason.INVALID_PDU_FIELD, () -> TextValue.bool("ImmediateData", "yes"));
        rejects(RejectReason.INVALID_PDU_FIELD, () -> TextValue.list("AuthMethod", "CHAP,,None"));
    }

    @Test
    void randomCorruptionNeverEscapesAsAnotherException() throws Exception {
        Random random = new Random(14);
        for (RoceSendsView send : RoceSendsView.all()) {
            for (int round = 0; round < 20; round++) {
                byte[] p = send.payload.clone();
                for (int i = 0; i < 4; i++) {
                    int at = random.nextInt(Math.min(p.length, IserHeader.LENGTH + Bhs.LENGTH + 16));
                    p[at] = (byte) random.nextInt();
                }
                try {
                    iser(p);
                } catch (IscsiProtocolException expected) {
                    // a reason is all a target needs
                } catch (RuntimeException e) {
                    fail(send.name + " round " + round + ": " + e);
                }
            }
        }
    }

    /** Every captured SEND of the three iSER captures, named for messages. */
    private record RoceSendsView(String name, byte[] payload) {
        static java.util.List<RoceSendsView> all() throws Exception {
            java.util.List<RoceSendsView> all = new java.util.ArrayList<>();
            for (String capture : new String[] {"iser_session", "iser_discovery", "iser_nopout"}) {
                sends(capture).forEach((frame, s) -> all.add(new RoceSendsView(capture + " frame " + frame,
                        s.payload())));
            }
            return all;
        }
    }
}
