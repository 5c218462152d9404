package org.jrdma.hw.rxe.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RxeOpcodeTest {

    /** name, value, length, RETH, AETH, ATMETH, ATMACK, IETH, IMMDT, DETH offsets (rxe_opcode.c, 6.1). */
    private static final Object[][] RXE_OPCODE_C = {
        {"RC_SEND_FIRST", 0x00, 12, -1, -1, -1, -1, -1, -1, -1},
        {"RC_SEND_MIDDLE", 0x01, 12, -1, -1, -1, -1, -1, -1, -1},
        {"RC_SEND_LAST", 0x02, 12, -1, -1, -1, -1, -1, -1, -1},
        {"RC_SEND_LAST_WITH_IMMEDIATE", 0x03, 16, -1, -1, -1, -1, -1, 12, -1},
        {"RC_SEND_ONLY", 0x04, 12, -1, -1, -1, -1, -1, -1, -1},
        {"RC_SEND_ONLY_WITH_IMMEDIATE", 0x05, 16, -1, -1, -1, -1, -1, 12, -1},
        {"RC_RDMA_WRITE_FIRST", 0x06, 28, 12, -1, -1, -1, -1, -1, -1},
        {"RC_RDMA_WRITE_MIDDLE", 0x07, 12, -1, -1, -1, -1, -1, -1, -1},
        {"RC_RDMA_WRITE_LAST", 0x08, 12, -1, -1, -1, -1, -1, -1, -1},
        {"RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", 0x09, 16, -1, -1, -1, -1, -1, 12, -1},
        {"RC_RDMA_WRITE_ONLY", 0x0a, 28, 12, -1, -1, -1, -1, -1, -1},
        {"RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", 0x0b, 32, 12, -1, -1, -1, -1, 28, -1},
        {"RC_RDMA_READ_REQUEST", 0x0c, 28, 12, -1, -1, -1, -1, -1, -1},
        {"RC_RDMA_READ_RESPONSE_FIRST", 0x0d, 16, -1, 12, -1, -1, -1, -1, -1},
        {"RC_RDMA_READ_RESPONSE_MIDDLE", 0x0e, 12, -1, -1, -1, -1, -1, -1, -1},
        {"RC_RDMA_READ_RESPONSE_LAST", 0x0f, 16, -1, 12, -1, -1, -1, -1, -1},
        {"RC_RDMA_READ_RESPONSE_ONLY", 0x10, 16, -1, 12, -1, -1, -1, -1, -1},
        {"RC_ACKNOWLEDGE", 0x11, 16, -1, 12, -1, -1, -1, -1, -1},
        {"RC_ATOMIC_ACKNOWLEDGE", 0x12, 24, -1, 12, -1, 16, -1, -1, -1},
        {"RC_COMPARE_SWAP", 0x13, 40, -1, -1, 12, -1, -1, -1, -1},
        {"RC_FETCH_ADD", 0x14, 40, -1, -1, 12, -1, -1, -1, -1},
        {"RC_SEND_LAST_WITH_INVALIDATE", 0x16, 16, -1, -1, -1, -1, 12, -1, -1},
        {"RC_SEND_ONLY_WITH_INVALIDATE", 0x17, 16, -1, -1, -1, -1, 12, -1, -1},
        {"UC_SEND_FIRST", 0x20, 12, -1, -1, -1, -1, -1, -1, -1},
        {"UC_SEND_MIDDLE", 0x21, 12, -1, -1, -1, -1, -1, -1, -1},
        {"UC_SEND_LAST", 0x22, 12, -1, -1, -1, -1, -1, -1, -1},
        {"UC_SEND_LAST_WITH_IMMEDIATE", 0x23, 16, -1, -1, -1, -1, -1, 12, -1},
        {"UC_SEND_ONLY", 0x24, 12, -1, -1, -1, -1, -1, -1, -1},
        {"UC_SEND_ONLY_WITH_IMMEDIATE", 0x25, 16, -1, -1, -1, -1, -1, 12, -1},
        {"UC_RDMA_WRITE_FIRST", 0x26, 28, 12, -1, -1, -1, -1, -1, -1},
        {"UC_RDMA_WRITE_MIDDLE", 0x27, 12, -1, -1, -1, -1, -1, -1, -1},
        {"UC_RDMA_WRITE_LAST", 0x28, 12, -1, -1, -1, -1, -1, -1, -1},
        {"UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", 0x29, 16, -1, -1, -1, -1, -1, 12, -1},
        {"UC_RDMA_WRITE_ONLY", 0x2a, 28, 12, -1, -1, -1, -1, -1, -1},
        {"UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", 0x2b, 32, 12, -1, -1, -1, -1, 28, -1},
        {"UD_SEND_ONLY", 0x64, 20, -1, -1, -1, -1, -1, -1, 12},
        {"UD_SEND_ONLY_WITH_IMMEDIATE", 0x65, 24, -1, -1, -1, -1, -1, 20, 12},
    };

    @Test
    void theTableIsRxeOpcodeC() {
        assertEquals(RXE_OPCODE_C.length, RxeOpcode.values().length);
        for (Object[] row : RXE_OPCODE_C) {
            RxeOpcode op = RxeOpcode.valueOf((String) row[0]);
            String n = op.name();
            assertEquals(row[1], op.value(), n);
            assertSame(op, RxeOpcode.of(op.value()), n);
            assertEquals(row[2], op.length(), n);
            assertEquals(row[2], op.payloadOffset(), n);
            assertEquals(row[3], op.rethOffset(), n);
            assertEquals(row[4], op.aethOffset(), n);
            assertEquals(row[5], op.atmethOffset(), n);
            assertEquals(row[6], op.atmackOffset(), n);
            assertEquals(row[7], op.iethOffset(), n);
            assertEquals(row[8], op.immdtOffset(), n);
            assertEquals(row[9], op.dethOffset(), n);
            assertEquals(-1, op.rdethOffset(), n);
            assertTrue(op.length() <= RxeWire.MAX_HDR_LENGTH, n);
        }
    }

    @Test
    void masksAreConsistent() {
        for (RxeOpcode op : RxeOpcode.values()) {
            String n = op.name();
            assertTrue(op.is(RxeMask.BTH), n);
            assertEquals(op.rethOffset() >= 0, op.is(RxeMask.RETH), n);
            assertEquals(op.aethOffset() >= 0, op.is(RxeMask.AETH), n);
            assertEquals(op.atmethOffset() >= 0, op.is(RxeMask.ATMETH), n);
            assertEquals(op.atmackOffset() >= 0, op.is(RxeMask.ATMACK), n);
            assertEquals(op.iethOffset() >= 0, op.is(RxeMask.IETH), n);
            assertEquals(op.immdtOffset() >= 0, op.is(RxeMask.IMMDT), n);
            assertEquals(op.dethOffset() >= 0, op.is(RxeMask.DETH), n);
            // exactly one of request / response, and exactly one operation kind
            assertTrue(op.is(RxeMask.REQ) ^ op.is(RxeMask.ACK), n);
            int kinds = Integer.bitCount(op.mask() & (RxeMask.SEND | RxeMask.WRITE | RxeMask.READ | RxeMask.ATOMIC));
            assertEquals(op.is(RxeMask.REQ) ? 1 : 0, kinds, n);
            // position in the message
            assertEquals(op.is(RxeMask.MIDDLE), !op.is(RxeMask.START) && !op.is(RxeMask.END), n);
            assertFalse(op.is(RxeMask.MIDDLE) && (op.is(RxeMask.START) || op.is(RxeMask.END)), n);
            assertEquals(n.contains("IMMEDIATE"), op.is(RxeMask.IMMDT), n);
            assertEquals(n.contains("INVALIDATE"), op.is(RxeMask.IETH), n);
            assertEquals(n.startsWith("UD_"), op.is(RxeMask.DETH), n);
            assertEquals(n.substring(0, 2), op.transport().name(), n);
            assertEquals(op.value() >>> 5, op.transport().ordinal(), n);
        }
        assertTrue(RxeOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.is(RxeMask.PAYLOAD | RxeMask.ACK | RxeMask.MIDDLE));
        assertFalse(RxeOpcode.RC_ACKNOWLEDGE.is(RxeMask.PAYLOAD));
        assertFalse(RxeOpcode.RC_RDMA_READ_REQUEST.is(RxeMask.PAYLOAD));
        assertTrue(RxeOpcode.RC_SEND_ONLY_WITH_INVALIDATE.is(RxeMask.RWR | RxeMask.COMP | RxeMask.START | RxeMask.END));
        assertTrue(RxeOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE.is(RxeMask.RWR | RxeMask.COMP));
        assertFalse(RxeOpcode.RC_RDMA_WRITE_ONLY.is(RxeMask.COMP));
    }

    @Test
    void unknownValuesAreNull() {
        Set<Integer> known = new HashSet<>();
        for (RxeOpcode op : RxeOpcode.values()) {
            known.add(op.value());
        }
        for (int v = 0; v < 256; v++) {
            assertEquals(known.contains(v), RxeOpcode.of(v) != null, "0x" + Integer.toHexString(v));
        }
        assertNull(RxeOpcode.of(0x15)); // reserved
        assertNull(RxeOpcode.of(0x1c)); // RC RDMA FLUSH: Linux 6.2+
        assertNull(RxeOpcode.of(0x1d)); // RC ATOMIC WRITE: Linux 6.2+
        assertNull(RxeOpcode.of(0x44)); // RD SEND ONLY: rxe drops RD
        assertNull(RxeOpcode.of(0x81)); // CNP
        assertNull(RxeOpcode.of(-1));
        assertNull(RxeOpcode.of(256));
        assertEquals(37, known.size());
    }
}
