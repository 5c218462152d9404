package org.jrdma.hw.rxe;

import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

/**
 * PARANOID leak detection with counted reports. Installed before Netty's buffer classes load (each test
 * class of this module runs in a fresh JVM, see the surefire configuration).
 */
final class LeakCheck {
    static final AtomicInteger LEAKS = new AtomicInteger();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                    long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval) {
                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        LEAKS.incrementAndGet();
                        super.reportTracedLeak(resourceType, records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.incrementAndGet();
                        super.reportUntracedLeak(resourceType);
                    }
                };
            }
        });
    }

    private LeakCheck() {
    }

    static void install() {
    }

    /**
     * Collects garbage and provokes the detector; the number of leaks reported so far, plus the packet slots
     * ({@link PacketPool}, which Netty's detector does not see) not returned. Called once every device is closed;
     * a slot still in a socket's last send gets a moment to come back.
     */
    static int collect() throws InterruptedException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (PacketPool.outstanding() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        long slots = PacketPool.outstanding();
        if (slots != 0) {
            System.err.println("LEAK: " + slots + " packet slots of " + PacketPool.slots() + " not returned");
        }
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(30);
            for (int k = 0; k < 16; k++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(64);
                b.release();
            }
        }
        return LEAKS.get() + (int) slots;
    }
}
