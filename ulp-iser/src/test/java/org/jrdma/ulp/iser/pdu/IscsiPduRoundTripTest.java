package org.jrdma.ulp.iser.pdu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The PDU kinds the Linux iSER captures do not hold (TMF, Data-Out, R2T, Reject, AHS, iSER Hello): each encodes
 * to the RFC 7143 layout and decodes back to the same record.
 */
class IscsiPduRoundTripTest {

    private static final List<IscsiHeader> HEADERS = List.of(
            new NopOut(true, 0, 1, 0xffffffff, new InitiatorSn(2, 3)),
            new NopIn(0, 0xffffffff, 0x1234, new TargetSn(5, 6, 7)),
            new ScsiCommand(false, true, false, true, TaskAttribute.ORDERED, 0x0001000000000000L, 9, 4096,
                    new InitiatorSn(10, 11), new byte[ScsiCommand.CDB_LENGTH]),
            new ScsiResponse(false, false, false, true, 0, ScsiResponse.GOOD, 9, 0, new TargetSn(12, 13, 14), 0, 0,
                    512),
            new TaskMgmtRequest(true, TmfFunction.LOGICAL_UNIT_RESET, 0x0001000000000000L, 15, 0xffffffff,
                    new InitiatorSn(16, 17), 16, 0),
            new TaskMgmtResponse(TmfResponse.NO_TASK, 15, new TargetSn(18, 19, 20)),
            new LoginRequest(new LoginStages(false, true, LoginStage.SECURITY_NEGOTIATION,
                    LoginStage.LOGIN_OPERATIONAL_NEGOTIATION), 0, 0, 0x80123456789aL, 0, 21, 1,
                    new InitiatorSn(22, 23)),
            new LoginResponse(new LoginStages(false, false, LoginStage.SECURITY_NEGOTIATION,
                    LoginStage.SECURITY_NEGOTIATION), 0, 0, 0x80123456789aL, 0, 21, new TargetSn(24, 22, 22),
                    LoginStatus.AUTHENTICATION_FAILURE),
            new TextRequest(false, false, true, 0, 25, 0xffffffff, new InitiatorSn(26, 27)),
            new TextResponse(false, true, 0, 25, 0x99, new TargetSn(28, 27, 30)),
            new DataOut(true, 0, 31, 0x55, 32, 1, 8192),
            new DataIn(true, false, false, true, true, ScsiResponse.GOOD, 0, 31, 0xffffffff,
                    new TargetSn(33, 34, 35), 2, 16384, 100),
            new LogoutRequest(false, LogoutReason.CLOSE_CONNECTION, 36, 7, new InitiatorSn(37, 38)),
            new LogoutResponse(1, 36, new TargetSn(39, 40, 41), 2, 20),
            new R2t(0, 42, 0x77, new TargetSn(43, 44, 45), 0, 8192, 65536),
            new Reject(RejectReason.INVALID_PDU_FIELD, new TargetSn(46, 47, 48), 0),
            new OtherHeader(IscsiOpcode.ASYNC_EVENT, asyncEvent()));

    private static byte[] asyncEvent() {
        byte[] b = new byte[Bhs.LENGTH];
        b[0] = 0x32;
        b[1] = (byte) 0x80;
        b[16] = b[17] = b[18] = b[19] = (byte) 0xff;
        b[36] = 1; // AsyncEvent 1: the target requests a logout
        return b;
    }

    private static IscsiPdu roundTrip(IscsiPdu pdu) throws IscsiProtocolException {
        ByteBuf out = Unpooled.buffer();
        pdu.encode(out);
        assertEquals(pdu.wireLength(), out.readableBytes());
        IscsiPdu back = IscsiPdu.decode(out, IscsiPdu.Padding.REQUIRED, IscsiPdu.MAX_DATA_SEGMENT);
        assertEquals(0, out.readableBytes());
        return back;
    }

    @Test
    void everyKindDecodesBackToItsFields() throws Exception {
        Set<IscsiOpcode> covered = EnumSet.noneOf(IscsiOpcode.class);
        for (IscsiHeader h : HEADERS) {
            IscsiPdu back = roundTrip(new IscsiPdu(h, new byte[] {1, 2, 3, 4, 5}));
            assertSame(h.opcode(), back.opcode());
            assertArrayEquals(new IscsiPdu(h, new byte[5]).bhs().toByteArray(),
                    new IscsiPdu(back.header(), new byte[5]).bhs().toByteArray(), h.toString());
            assertEquals(h, back.header());
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, back.data());
            covered.add(h.opcode());
        }
        assertEquals(EnumSet.complementOf(EnumSet.of(IscsiOpcode.SNACK)), covered);
    }

    @Test
    void theOpcodeTableMatchesTheSenderRanges() throws Exception {
        for (IscsiOpcode op : IscsiOpcode.values()) {
            assertSame(op, IscsiOpcode.of(op.value()));
            assertEquals(op.value() < 0x20, op.sender() == IscsiOpcode.Sender.INITIATOR, op.name());
        }
    }

    @Test
    void extendedCdbAhsIsPaddedAndCountedInWords() throws Exception {
        byte[] rest = new byte[16]; // a 32-byte CDB: 16 in the BHS, 16 here
        rest[15] = 0x42;
        Ahs ahs = new Ahs(Ahs.EXTENDED_CDB, concat(new byte[1], rest));
        IscsiPdu pdu = new IscsiPdu(HEADERS.get(2), List.of(ahs, new Ahs(Ahs.BIDI_READ_EDTL, new byte[5])),
                new byte[0]);
        assertEquals(5 + 2, pdu.bhs().totalAhsLength(), "20 + 8 bytes in words");
        IscsiPdu back = roundTrip(pdu);
        assertEquals(2, back.ahs().size());
        assertArrayEquals(ahs.specific(), back.ahs().get(0).specific());
        assertEquals(Ahs.BIDI_READ_EDTL, back.ahs().get(1).type());
    }

    @Test
    void rejectCarriesTheReasonOfADecodeFailure() throws Exception {
        IscsiProtocolException e = new IscsiProtocolException(RejectReason.CMD_NOT_SUPPORTED, "opcode 0x07");
        Reject reject = Reject.of(e, new TargetSn(1, 2, 3));
        byte[] bhs = new IscsiPdu(reject, new byte[Bhs.LENGTH]).bhs().toByteArray();
        assertEquals(0x3f, bhs[0]);
        assertEquals(0x05, bhs[2]);
        assertEquals(-1, Bhs.of(bhs).itt());
        assertEquals(Bhs.LENGTH, Bhs.of(bhs).dataSegmentLength());
    }

    @Test
    void iserHelloAndHelloReply() throws Exception {
        ByteBuf out = Unpooled.buffer();
        new IserHello(IserHello.VERSION, IserHello.VERSION, 16).encode(out);
        assertArrayEquals(new byte[] {0x20, (byte) 0xaa, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0}, bytes(out));
        new IserHello(IserHello.VERSION, IserHello.VERSION, 16).encode(out);
        assertEquals(new IserHello(10, 10, 16), IserHello.decode(out));
        new IserHelloReply(true, IserHello.VERSION, IserHello.VERSION, 128).encode(out);
        assertEquals(0x31, out.getByte(out.readerIndex()));
        assertEquals(new IserHelloReply(true, 10, 10, 128), IserHelloReply.decode(out));
    }

    @Test
    void textValueTypes() throws Exception {
        assertEquals(262144, TextValue.numeric("k", "262144"));
        assertEquals(0x1000, TextValue.numeric("k", "0x1000"));
        assertEquals(-1L, TextValue.numeric("k", "18446744073709551615"));
        assertEquals(List.of("CHAP", "None"), TextValue.list("AuthMethod", "CHAP,None"));
        assertEquals("Yes", TextValue.bool(true));
        assertEquals(TextValue.Special.NOT_UNDERSTOOD, TextValue.special("NotUnderstood").orElseThrow());
        assertEquals(TextValue.Special.IRRELEVANT, TextValue.special("Irrelevant").orElseThrow());
        assertEquals(TextValue.Special.REJECT, TextValue.special("Reject").orElseThrow());
        TextKeys keys = TextKeys.of("InitiatorAlias", "hôte", "X-org.jrdma.test", "1");
        assertEquals(keys, TextKeys.decode(keys.encode()));
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.readBytes(a);
        return a;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
