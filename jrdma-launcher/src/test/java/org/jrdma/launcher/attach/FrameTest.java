package org.jrdma.launcher.attach;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

class FrameTest {

    @Test
    void everyTypeRoundTripsByteExact() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        Frame[] sent = {
            Frame.command("rdma link add rxe0 type rxe netdev lo; ibv_devices"),
            Frame.interrupt(),
            new Frame(FrameType.STDOUT, "héllo\n".getBytes(StandardCharsets.UTF_8)),
            new Frame(FrameType.STDERR, new byte[] { 0, (byte) 0xff, 10 }),
            Frame.exit(255) };
        for (Frame f : sent) {
            f.writeTo(wire);
        }
        ByteArrayInputStream in = new ByteArrayInputStream(wire.toByteArray());
        for (Frame f : sent) {
            Frame got = Frame.read(in);
            assertEquals(f.type(), got.type());
            assertArrayEquals(f.payload(), got.payload());
        }
        assertNull(Frame.read(in), "a clean end between frames");
    }

    @Test
    void theWireFormatIsTypeLengthPayload() {
        assertArrayEquals(new byte[] { 5, 0, 0, 0, 4, 0, 0, 0, (byte) 130 }, Frame.exit(130).encode());
        assertArrayEquals(new byte[] { 1, 0, 0, 0, 2, 'l', 'b' }, Frame.command("lb").encode());
        assertEquals(130, Frame.exit(130).status());
        assertEquals("lb", Frame.command("lb").text());
    }

    @Test
    void unknownTypeIsAProtocolError() {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> Frame.read(new ByteArrayInputStream(new byte[] { 9, 0, 0, 0, 0 })));
        assertTrue(e.getMessage().contains("unknown frame type 9"), e.getMessage());
    }

    @Test
    void lengthOutOfRangeIsAProtocolError() {
        byte[] huge = { 3, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff };
        assertThrows(ProtocolException.class, () -> Frame.read(new ByteArrayInputStream(huge)));
        byte[] negative = { 3, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff };
        assertThrows(ProtocolException.class, () -> Frame.read(new ByteArrayInputStream(negative)));
        byte[] shortExit = { 5, 0, 0, 0, 1, 0 };
        assertThrows(ProtocolException.class, () -> Frame.read(new ByteArrayInputStream(shortExit)));
    }

    @Test
    void aFrameCutShortIsAnEof() {
        byte[] whole = Frame.command("ibv_devinfo").encode();
        for (int cut = 1; cut < whole.length; cut++) {
            byte[] part = Arrays.copyOf(whole, cut);
            assertThrows(EOFException.class, () -> Frame.read(new ByteArrayInputStream(part)), "cut at " + cut);
        }
    }

    @Test
    void payloadsAreBounded() {
        assertThrows(IllegalArgumentException.class, () -> new Frame(FrameType.STDOUT, new byte[Frame.MAX_PAYLOAD + 1]));
        assertThrows(IllegalStateException.class, () -> Frame.command("x").status());
    }

    @Test
    void typesKnowTheirDirection() {
        for (FrameType t : FrameType.values()) {
            assertEquals(t, FrameType.of(t.code()));
        }
        assertNull(FrameType.of(0));
        assertNull(FrameType.of(-1));
        assertEquals(FrameType.Direction.TO_CONTAINER, FrameType.INTERRUPT.direction());
        assertEquals(FrameType.Direction.TO_CLIENT, FrameType.EXIT.direction());
    }
}
