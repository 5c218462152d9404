package org.jrdma.launcher.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileInputStream;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

class JvmCommandTest {
    /** A framework with no bundles: no Netty to ask. */
    private static final BundleContext NO_BUNDLES = (BundleContext) Proxy.newProxyInstance(
            JvmCommandTest.class.getClassLoader(), new Class<?>[] { BundleContext.class },
            (proxy, m, args) -> m.getName().equals("getBundles") ? new Bundle[0] : null);

    private final JvmCommand cmd = new JvmCommand(NO_BUNDLES);

    @Test
    void anOpenFileIsOneMoreFd() throws Exception {
        long before = cmd.figures(false).get("fds");
        try (FileInputStream in = new FileInputStream("/proc/self/status")) {
            assertEquals(before + 1, cmd.figures(false).get("fds"));
        }
        assertEquals(before, cmd.figures(false).get("fds"));
    }

    @Test
    void aStartedThreadIsCounted() throws Exception {
        long before = cmd.figures(false).get("threads");
        long tasks = cmd.figures(false).get("tasks");
        Object gate = new Object();
        Thread t = new Thread(() -> {
            synchronized (gate) {
                try {
                    gate.wait(60_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        t.start();
        try {
            Map<String, Long> f = cmd.figures(false);
            assertEquals(before + 1, f.get("threads"));
            assertEquals(tasks + 1, f.get("tasks"));
        } finally {
            t.interrupt();
            t.join(60_000);
        }
    }

    @Test
    void aHeldDirectBufferIsInTheDirectPool() {
        long before = cmd.figures(false).get("direct_bytes");
        ByteBuffer held = ByteBuffer.allocateDirect(3 << 20);
        assertEquals(before + (3 << 20), cmd.figures(false).get("direct_bytes"));
        assertEquals(3 << 20, held.capacity());
    }

    @Test
    void heapAfterGcDropsGarbage() {
        byte[][] garbage = new byte[64][];
        for (int i = 0; i < garbage.length; i++) {
            garbage[i] = new byte[1 << 20];
        }
        long withGarbage = cmd.figures(false).get("heap_used");
        garbage = null;
        long after = cmd.figures(true).get("heap_used_after_gc");
        assertTrue(after < withGarbage - (32L << 20), "after GC " + after + " vs " + withGarbage + " with 64 MiB garbage");
    }

    @Test
    void printsNameValueLinesAndMinusOneWithoutNetty() {
        String out = cmd.jvm(true);
        assertTrue(out.matches("(?s)threads \\d+\ntasks \\d+\nfds \\d+\nheap_used_after_gc \\d+\nheap_committed \\d+\n"
                + "direct_buffers \\d+\ndirect_bytes \\d+\nmapped_bytes \\d+\nnetty_direct_bytes -1"), out);
    }
}
