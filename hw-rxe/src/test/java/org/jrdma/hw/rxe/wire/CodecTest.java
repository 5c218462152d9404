package org.jrdma.hw.rxe.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class CodecTest {
    private static final int OFF = 5; // every codec works at an arbitrary absolute offset

    private static ByteBuf buf() {
        ByteBuf b = Unpooled.buffer(64);
        b.writeZero(64);
        b.readerIndex(3);
        return b;
    }

    private static void indexesUntouched(ByteBuf b) {
        assertEquals(3, b.readerIndex());
        assertEquals(64, b.writerIndex());
    }

    @Test
    void bthLayout() {
        ByteBuf b = buf();
        Bth.encode(b, OFF, 0x0a, true, false, 3, 0xffff, 0x123456, true, 0xabcdef);
        assertEquals("0ab0ffff0012345680abcdef", ByteBufUtil.hexDump(b, OFF, Bth.BYTES));
        assertEquals(0x0a, Bth.opcode(b, OFF));
        assertTrue(Bth.se(b, OFF));
        assertFalse(Bth.mig(b, OFF));
        assertEquals(3, Bth.pad(b, OFF));
        assertEquals(0, Bth.tver(b, OFF));
        assertEquals(0xffff, Bth.pkey(b, OFF));
        assertEquals(0x123456, Bth.qpn(b, OFF));
        assertTrue(Bth.ackReq(b, OFF));
        assertEquals(0xabcdef, Bth.psn(b, OFF));
        indexesUntouched(b);
    }

    @Test
    void bthFieldsAreIndependent() {
        ByteBuf b = buf();
        Bth.encode(b, OFF, 0xff, true, true, 3, 0xffff, 0xffffff, true, 0xffffff);
        Bth.setTver(b, OFF, 0xf);
        Bth.setFecn(b, OFF, true);
        Bth.setBecn(b, OFF, true);
        Bth.setResv6a(b, OFF, 0x3f);
        Bth.setResv7(b, OFF, 0x7f);
        assertEquals("ffffffffffffffffffffffff", ByteBufUtil.hexDump(b, OFF, Bth.BYTES));
        assertEquals(0, b.getByte(OFF - 1));
        assertEquals(0, b.getByte(OFF + Bth.BYTES));
        Bth.setPad(b, OFF, 0);
        assertEquals(0xcf, b.getUnsignedByte(OFF + 1));
        Bth.setQpn(b, OFF, 0);
        assertEquals(0xff000000, b.getInt(OFF + 4));
        assertTrue(Bth.fecn(b, OFF));
        assertTrue(Bth.becn(b, OFF));
        assertEquals(0x3f, Bth.resv6a(b, OFF));
        Bth.setFecn(b, OFF, false);
        assertFalse(Bth.fecn(b, OFF));
        assertTrue(Bth.becn(b, OFF));
        Bth.setPsn(b, OFF, 0x1000000 | 7); // 24 bits only
        assertEquals(7, Bth.psn(b, OFF));
        assertEquals(0x7f, Bth.resv7(b, OFF));
        assertTrue(Bth.ackReq(b, OFF));
        Bth.setAckReq(b, OFF, false);
        assertFalse(Bth.ackReq(b, OFF));
        assertEquals(0x7f, Bth.resv7(b, OFF));
        Bth.setSe(b, OFF, false);
        Bth.setMig(b, OFF, false);
        Bth.setTver(b, OFF, 0);
        assertEquals(0, b.getUnsignedByte(OFF + 1));
        Bth.setOpcode(b, OFF, 0x64);
        Bth.setPkey(b, OFF, 0x8001);
        assertEquals(0x64, Bth.opcode(b, OFF));
        assertEquals(0x8001, Bth.pkey(b, OFF));
        indexesUntouched(b);
    }

    @Test
    void reth() {
        ByteBuf b = buf();
        Reth.encode(b, OFF, 0x8000_5602_e130_7000L, 0xdeadbeef, 0xffff_fff0);
        assertEquals("80005602e1307000deadbeeffffffff0", ByteBufUtil.hexDump(b, OFF, Reth.BYTES));
        assertEquals(0x8000_5602_e130_7000L, Reth.va(b, OFF));
        assertEquals(0xdeadbeef, Reth.rkey(b, OFF));
        assertEquals(0xffff_fff0L, Integer.toUnsignedLong(Reth.len(b, OFF)));
        Reth.setVa(b, OFF, 1);
        Reth.setRkey(b, OFF, 2);
        Reth.setLen(b, OFF, 3);
        assertEquals("00000000000000010000000200000003", ByteBufUtil.hexDump(b, OFF, Reth.BYTES));
        indexesUntouched(b);
    }

    @Test
    void atomicEthIsPacked28Bytes() {
        ByteBuf b = buf();
        AtomicEth.encode(b, OFF, 0x0102030405060708L, 0x090a0b0c, 0x1112131415161718L, 0x2122232425262728L);
        assertEquals("0102030405060708090a0b0c11121314151617182122232425262728",
                ByteBufUtil.hexDump(b, OFF, AtomicEth.BYTES));
        assertEquals(0x0102030405060708L, AtomicEth.va(b, OFF));
        assertEquals(0x090a0b0c, AtomicEth.rkey(b, OFF));
        assertEquals(0x1112131415161718L, AtomicEth.swapAdd(b, OFF));
        assertEquals(0x2122232425262728L, AtomicEth.comp(b, OFF));
        indexesUntouched(b);
    }

    @Test
    void smallHeaders() {
        ByteBuf b = buf();
        AtomicAckEth.encode(b, OFF, -2L);
        assertEquals(-2L, AtomicAckEth.orig(b, OFF));
        assertEquals("fffffffffffffffe", ByteBufUtil.hexDump(b, OFF, AtomicAckEth.BYTES));
        ImmDt.encode(b, OFF, 0x44332211);
        assertEquals("44332211", ByteBufUtil.hexDump(b, OFF, ImmDt.BYTES));
        assertEquals(0x44332211, ImmDt.imm(b, OFF));
        Ieth.encode(b, OFF, 0x1234);
        assertEquals(0x1234, Ieth.rkey(b, OFF));
        Deth.encode(b, OFF, RxeWire.GSI_QKEY, 0xff000001); // only 24 bits of source QP
        assertEquals("8001000000000001", ByteBufUtil.hexDump(b, OFF, Deth.BYTES));
        assertEquals(RxeWire.GSI_QKEY, Deth.qkey(b, OFF));
        assertEquals(1, Deth.sqp(b, OFF));
        assertEquals(0, Deth.resv8(b, OFF));
        b.setByte(OFF + 4, 0x5a);
        assertEquals(1, Deth.sqp(b, OFF));
        indexesUntouched(b);
    }

    @Test
    void aethLayout() {
        ByteBuf b = buf();
        Aeth.encode(b, OFF, Aeth.NAK_REM_ACC_ERR, 0x1234567); // MSN is 24 bits
        assertEquals("62234567", ByteBufUtil.hexDump(b, OFF, Aeth.BYTES));
        assertEquals(0x62, Aeth.syn(b, OFF));
        assertEquals(0x234567, Aeth.msn(b, OFF));
        Aeth.setSyn(b, OFF, 0x1f);
        Aeth.setMsn(b, OFF, 5);
        assertEquals("1f000005", ByteBufUtil.hexDump(b, OFF, Aeth.BYTES));
        indexesUntouched(b);
    }

    /** The syndromes the captures hold (README table): 31, 46, 96, 98. */
    @Test
    void capturedSyndromes() {
        assertSame(Aeth.Type.ACK, Aeth.type(31));
        assertEquals(Aeth.ACK_UNLIMITED, Aeth.credits(31));
        assertEquals(31, Aeth.ackSyndrome(Aeth.ACK_UNLIMITED));

        assertSame(Aeth.Type.RNR_NAK, Aeth.type(46));
        assertEquals(14, Aeth.rnrTimer(46));
        assertEquals(46, Aeth.rnrNakSyndrome(14));

        assertSame(Aeth.Type.NAK, Aeth.type(96));
        assertSame(Aeth.NakCode.PSN_SEQUENCE_ERROR, Aeth.nakCode(96));
        assertEquals(Aeth.NAK_PSN_SEQ_ERROR, Aeth.nakSyndrome(Aeth.NakCode.PSN_SEQUENCE_ERROR));

        assertSame(Aeth.Type.NAK, Aeth.type(98));
        assertSame(Aeth.NakCode.REMOTE_ACCESS_ERROR, Aeth.nakCode(98));
        assertEquals(Aeth.NAK_REM_ACC_ERR, Aeth.nakSyndrome(Aeth.NakCode.REMOTE_ACCESS_ERROR));
    }

    @Test
    void everySyndrome() {
        for (int syn = 0; syn < 256; syn++) {
            Aeth.Type t = Aeth.type(syn);
            if (syn < 0x20) {
                assertSame(Aeth.Type.ACK, t);
            } else if (syn < 0x40) {
                assertSame(Aeth.Type.RNR_NAK, t);
                assertEquals(syn - 0x20, Aeth.rnrTimer(syn));
            } else if (syn >= 0x60 && syn < 0x80) {
                assertSame(Aeth.Type.NAK, t);
            } else {
                assertSame(Aeth.Type.RESERVED, t, "syndrome " + syn);
            }
        }
        assertSame(Aeth.NakCode.INVALID_REQUEST, Aeth.nakCode(Aeth.NAK_INVALID_REQ));
        assertSame(Aeth.NakCode.REMOTE_OPERATIONAL_ERROR, Aeth.nakCode(Aeth.NAK_REM_OP_ERR));
        assertSame(Aeth.NakCode.INVALID_RD_REQUEST, Aeth.nakCode(Aeth.NAK_INV_RD_REQ));
        assertSame(Aeth.NakCode.RESERVED, Aeth.nakCode(0x65));
        assertSame(Aeth.NakCode.RESERVED, Aeth.nakCode(0x7f));
        assertEquals(-1, Aeth.NakCode.RESERVED.code());
        for (Aeth.NakCode c : Aeth.NakCode.values()) {
            if (c != Aeth.NakCode.RESERVED) {
                assertSame(c, Aeth.nakCode(Aeth.nakSyndrome(c)));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Aeth.nakSyndrome(Aeth.NakCode.RESERVED));
    }

    @Test
    void directBuffersToo() {
        ByteBuf heap = buf();
        ByteBuf direct = Unpooled.directBuffer(64);
        direct.writeZero(64);
        for (ByteBuf b : new ByteBuf[] {heap, direct}) {
            Bth.encode(b, OFF, 0x12, false, true, 0, 0x7fff, 0x11, false, 0x222222);
            Aeth.encode(b, OFF + 12, 0x1f, 9);
            AtomicAckEth.encode(b, OFF + 16, 0x0123456789abcdefL);
        }
        byte[] h = new byte[24];
        byte[] d = new byte[24];
        heap.getBytes(OFF, h);
        direct.getBytes(OFF, d);
        assertArrayEquals(h, d);
        direct.release();
    }
}
