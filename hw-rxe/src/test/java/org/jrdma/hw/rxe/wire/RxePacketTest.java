package org.jrdma.hw.rxe.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RxePacketTest {
    private final RxePacket pkt = new RxePacket();

    /** A well-formed packet with zeroed extension headers, {@code lead} junk bytes before the BTH. */
    private static ByteBuf packet(RxeOpcode op, int payload, int lead) {
        int len = RxeWire.udpPayloadLength(op, payload);
        ByteBuf b = Unpooled.buffer(lead + len);
        b.writeZero(lead + len);
        b.readerIndex(lead);
        Bth.encode(b, lead, op.value(), false, false, RxeWire.padFor(payload), RxeWire.DEFAULT_PKEY, 0x11, true, 0x1000);
        return b;
    }

    @Test
    void wellFormed() {
        ByteBuf b = packet(RxeOpcode.UD_SEND_ONLY_WITH_IMMEDIATE, 5, 7);
        Deth.encode(b, 7 + 12, RxeWire.GSI_QKEY, 1);
        ImmDt.encode(b, 7 + 20, 0xcafe);
        assertEquals(RxeDecodeStatus.OK, pkt.decode(b));
        assertEquals(7, b.readerIndex());
        assertSame(RxeOpcode.UD_SEND_ONLY_WITH_IMMEDIATE, pkt.opcode());
        assertEquals(7, pkt.bthOffset());
        assertEquals(24 + 5 + 3 + 4, pkt.length());
        assertEquals(24, pkt.headerLength());
        assertEquals(7 + 24, pkt.payloadOffset());
        assertEquals(5, pkt.payloadLength());
        assertEquals(3, pkt.pad());
        assertEquals(7 + 32, pkt.icrcOffset());
        assertEquals(0x11, pkt.qpn());
        assertEquals(0x1000, pkt.psn());
        assertTrue(pkt.ackReq());
        assertEquals(RxeWire.GSI_QKEY, pkt.dethQkey());
        assertEquals(1, pkt.dethSqp());
        assertEquals(0xcafe, pkt.immdt());
        assertEquals(7 + 12, pkt.dethOffset());
        assertEquals(7 + 20, pkt.immdtOffset());
        assertThrows(IllegalStateException.class, pkt::rethVa); // not in this opcode
        assertThrows(IllegalStateException.class, pkt::aethSyn);
    }

    @Test
    void everyOpcodeWithAndWithoutPayload() {
        for (RxeOpcode op : RxeOpcode.values()) {
            for (int payload : new int[] {0, 1, 2, 3, 4, 1024}) {
                ByteBuf b = packet(op, payload, 0);
                assertEquals(RxeDecodeStatus.OK, pkt.decode(b), op + " " + payload);
                assertEquals(payload, pkt.payloadLength(), op.name());
                assertEquals(RxeWire.padFor(payload), pkt.pad(), op.name());
                assertEquals(op.mask(), pkt.mask());
            }
        }
    }

    @Test
    void tooShort() {
        assertEquals(RxeDecodeStatus.MALFORMED_SHORT, pkt.decode(Unpooled.EMPTY_BUFFER));
        assertNull(pkt.opcode());
        assertEquals(RxeDecodeStatus.MALFORMED_SHORT, pkt.decode(Unpooled.wrappedBuffer(new byte[11])));
        // the header is there but not the ICRC
        ByteBuf ack = packet(RxeOpcode.RC_ACKNOWLEDGE, 0, 0);
        assertEquals(RxeDecodeStatus.MALFORMED_SHORT, pkt.decode(ack.slice(0, 16)));
        assertSame(RxeOpcode.RC_ACKNOWLEDGE, pkt.opcode());
        // a truncated RETH
        ByteBuf read = packet(RxeOpcode.RC_RDMA_READ_REQUEST, 0, 0);
        assertEquals(RxeDecodeStatus.OK, pkt.decode(read));
        assertEquals(RxeDecodeStatus.MALFORMED_SHORT, pkt.decode(read.slice(0, 12 + 15)));
        assertThrows(IllegalStateException.class, pkt::rethVa);
        // a truncated AtomicETH
        ByteBuf cas = packet(RxeOpcode.RC_COMPARE_SWAP, 0, 0);
        assertEquals(RxeDecodeStatus.MALFORMED_SHORT, pkt.decode(cas, 0, 12 + 28 + 3));
    }

    @Test
    void unknownOpcodes() {
        for (int v : new int[] {0x15, 0x18, 0x1c, 0x1d, 0x2c, 0x40, 0x44, 0x60, 0x66, 0x81, 0xff}) {
            ByteBuf b = Unpooled.buffer(64).writeZero(64);
            b.setByte(0, v);
            assertEquals(RxeDecodeStatus.BAD_OPCODE, pkt.decode(b), "0x" + Integer.toHexString(v));
            assertEquals(v, pkt.opcodeValue());
            assertNull(pkt.opcode());
            assertEquals(0, pkt.mask());
            assertThrows(IllegalStateException.class, pkt::immdt);
        }
    }

    @Test
    void badTver() {
        ByteBuf b = packet(RxeOpcode.RC_SEND_ONLY, 8, 0);
        Bth.setTver(b, 0, 1);
        assertEquals(RxeDecodeStatus.BAD_TVER, pkt.decode(b));
        assertEquals(1, pkt.tver());
    }

    @Test
    void padLongerThanPayload() {
        ByteBuf send = packet(RxeOpcode.RC_SEND_ONLY, 2, 0); // 2 bytes payload + 2 pad
        Bth.setPad(send, 0, 3);
        assertEquals(RxeDecodeStatus.OK, pkt.decode(send)); // 1 byte payload + 3 pad: consistent
        assertEquals(1, pkt.payloadLength());
        ByteBuf ack = packet(RxeOpcode.RC_ACKNOWLEDGE, 0, 0);
        Bth.setPad(ack, 0, 1);
        assertEquals(RxeDecodeStatus.BAD_PAD, pkt.decode(ack));
        ByteBuf empty = packet(RxeOpcode.RC_SEND_ONLY, 0, 0);
        Bth.setPad(empty, 0, 2);
        assertEquals(RxeDecodeStatus.BAD_PAD, pkt.decode(empty));
    }

    @Test
    void reuseForgetsThePreviousPacket() {
        ByteBuf good = packet(RxeOpcode.RC_RDMA_WRITE_ONLY, 64, 0);
        Reth.encode(good, 12, 0x1000, 0x77, 64);
        assertEquals(RxeDecodeStatus.OK, pkt.decode(good));
        assertEquals(0x77, pkt.rethRkey());
        assertEquals(RxeDecodeStatus.MALFORMED_SHORT, pkt.decode(Unpooled.wrappedBuffer(new byte[3])));
        assertNull(pkt.opcode());
        assertEquals(0, pkt.payloadLength());
        assertThrows(IllegalStateException.class, pkt::rethRkey);
        pkt.clear();
        assertNull(pkt.buf());
    }

    /** Garbage and mutated packets: a status every time, never an exception, and sane offsets when OK. */
    @Test
    void fuzzNeverThrows() {
        SplittableRandom rnd = new SplittableRandom(4791);
        ByteBuf b = Unpooled.buffer(128);
        int ok = 0;
        for (int i = 0; i < 200_000; i++) {
            int len = rnd.nextInt(100);
            b.clear();
            for (int j = 0; j < len; j++) {
                b.writeByte(rnd.nextInt(256));
            }
            if (rnd.nextBoolean() && len > 0) { // bias towards known opcodes and TVer 0
                RxeOpcode[] all = RxeOpcode.values();
                b.setByte(0, all[rnd.nextInt(all.length)].value());
                if (len > 1) {
                    b.setByte(1, b.getByte(1) & 0xf0);
                }
            }
            RxeDecodeStatus s = pkt.decode(b);
            assertEquals(0, b.readerIndex());
            if (s == RxeDecodeStatus.OK) {
                ok++;
                assertTrue(pkt.payloadOffset() + pkt.payloadLength() + pkt.pad() + 4 == len);
                assertTrue(pkt.payloadLength() >= 0);
            }
        }
        assertTrue(ok > 10_000, "fuzz reached OK " + ok + " times");
    }
}
