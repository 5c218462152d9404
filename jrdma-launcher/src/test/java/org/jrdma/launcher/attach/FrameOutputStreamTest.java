package org.jrdma.launcher.attach;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class FrameOutputStreamTest {

    @Test
    void bytesArriveInOrderInFramesOfAtMostTheBuffer() {
        List<Frame> frames = new ArrayList<>();
        FrameOutputStream out = new FrameOutputStream(FrameType.STDERR, frames::add);
        byte[] data = new byte[3 * FrameOutputStream.BUFFER + 123];
        new Random(16).nextBytes(data);
        out.write(data[0]);
        out.write(data, 1, 5000);
        out.write(data, 5001, data.length - 5001);
        out.flush();
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (Frame f : frames) {
            assertEquals(FrameType.STDERR, f.type());
            assertTrue(f.payload().length > 0 && f.payload().length <= FrameOutputStream.BUFFER);
            joined.writeBytes(f.payload());
        }
        assertArrayEquals(data, joined.toByteArray());
        assertEquals(4, frames.size());
    }

    @Test
    void nothingIsSentUntilFlushedAndAnEmptyFlushSendsNothing() {
        List<Frame> frames = new ArrayList<>();
        FrameOutputStream out = new FrameOutputStream(FrameType.STDOUT, frames::add);
        out.flush();
        out.write('a');
        assertEquals(0, frames.size());
        out.flush();
        assertEquals(1, frames.size());
        assertArrayEquals(new byte[] { 'a' }, frames.get(0).payload());
    }

    @Test
    void onlyOutputTypes() {
        assertThrows(IllegalArgumentException.class, () -> new FrameOutputStream(FrameType.EXIT, f -> { }));
    }
}
