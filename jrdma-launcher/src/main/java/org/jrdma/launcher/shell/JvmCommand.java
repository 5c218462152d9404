package org.jrdma.launcher.shell;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * {@code jvm [-g|--gc]}: the container's own resource figures, one {@code name value} line each as
 * {@code /proc/vmstat} prints them, for soak/run's leak check (threads, file descriptors, heap after a
 * full GC, direct memory). With {@code -g} the heap is measured after full GCs until it stops shrinking,
 * so that garbage does not count as growth.
 */
public final class JvmCommand {
    /** Full GCs at most for {@code -g}: two usually settle it; reference processing may need more. */
    static final int MAX_GCS = 6;
    /** Time for the Cleaner thread to free the direct buffers a GC found unreachable. */
    static final long CLEANER_WAIT_MS = 200;
    private static final String NETTY_BUNDLE = "io.netty.common";
    private static final String NETTY_PLATFORM = "io.netty.util.internal.PlatformDependent";

    private final BundleContext context;

    JvmCommand(BundleContext context) {
        this.context = context;
    }

    /** Registers the command; unregister it when the bundle stops. */
    public static ServiceRegistration<?> register(BundleContext context) {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("osgi.command.scope", "jrdma");
        p.put("osgi.command.function", new String[] { "jvm" });
        return context.registerService(JvmCommand.class, new JvmCommand(context), p);
    }

    @Descriptor("the container JVM's threads, open file descriptors, heap and direct memory (name value lines)")
    public String jvm(@Descriptor("measure the heap after full GCs") @Parameter(names = { "-g", "--gc" },
            presentValue = "true", absentValue = "false") boolean gc) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Long> e : figures(gc).entrySet()) {
            b.append(b.length() == 0 ? "" : "\n").append(e.getKey()).append(' ').append(e.getValue());
        }
        return b.toString();
    }

    /** The figures, in print order; -1 where this JVM or OS cannot tell. */
    Map<String, Long> figures(boolean gc) {
        Map<String, Long> f = new LinkedHashMap<>();
        long heap = gc ? heapAfterGc() : heapUsage().getUsed();
        f.put("threads", (long) ManagementFactory.getThreadMXBean().getThreadCount());
        f.put("tasks", count(Path.of("/proc/self/task")));
        f.put("fds", count(Path.of("/proc/self/fd")));
        f.put(gc ? "heap_used_after_gc" : "heap_used", heap);
        f.put("heap_committed", heapUsage().getCommitted());
        BufferPoolMXBean direct = pool("direct");
        f.put("direct_buffers", direct == null ? -1 : direct.getCount());
        f.put("direct_bytes", direct == null ? -1 : direct.getMemoryUsed());
        BufferPoolMXBean mapped = pool("mapped");
        f.put("mapped_bytes", mapped == null ? -1 : mapped.getMemoryUsed());
        f.put("netty_direct_bytes", nettyDirect());
        return f;
    }

    private static MemoryUsage heapUsage() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    }

    /**
     * Heap used after full GCs, repeated until neither the heap nor the direct pool shrinks any more: a direct
     * buffer's memory is freed by the Cleaner thread after the GC that found it unreachable, not by the GC.
     */
    static long heapAfterGc() {
        long used = Long.MAX_VALUE;
        long direct = Long.MAX_VALUE;
        for (int i = 0; i < MAX_GCS; i++) {
            System.gc();
            try {
                Thread.sleep(CLEANER_WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long now = heapUsage().getUsed();
            BufferPoolMXBean p = pool("direct");
            long d = p == null ? 0 : p.getMemoryUsed();
            if (now >= used && d >= direct) {
                return now;
            }
            used = Math.min(used, now);
            direct = Math.min(direct, d);
        }
        return used;
    }

    private static BufferPoolMXBean pool(String name) {
        for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (p.getName().equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** Entries of a /proc directory (this count's own open directory included); -1 without /proc. */
    static long count(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    /**
     * Netty's own count of the direct memory it allocated without a {@code Cleaner} (not in the "direct"
     * buffer pool); -1 when no Netty bundle is installed or it does not count.
     */
    long nettyDirect() {
        for (Bundle b : context.getBundles()) {
            if (NETTY_BUNDLE.equals(b.getSymbolicName()) && b.getState() == Bundle.ACTIVE) {
                try {
                    Object v = b.loadClass(NETTY_PLATFORM).getMethod("usedDirectMemory").invoke(null);
                    return ((Number) v).longValue();
                } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
