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

    /** Collects garbage and provokes the detector; the number of leaks reported so far. */
    static int collect() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(30);
            for (int k = 0; k < 16; k++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(64);
                b.release();
            }
        }
        return LEAKS.get();
    }
}
