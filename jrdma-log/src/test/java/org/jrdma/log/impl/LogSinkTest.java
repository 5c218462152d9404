package org.jrdma.log.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;

class LogSinkTest {

    @TempDir
    Path dir;

    static LogEntry entry(LogLevel level, String bsn, String logger, String message, Throwable thrown) {
        Bundle b = SystemLoggerBridgeTest.named(Bundle.class, bsn);
        Map<String, Object> v = Map.of("getLogLevel", level, "getBundle", b, "getLoggerName", logger,
                "getMessage", message, "getTime", 1_700_000_000_123L);
        return (LogEntry) Proxy.newProxyInstance(LogSinkTest.class.getClassLoader(), new Class<?>[] { LogEntry.class },
                (p, m, a) -> m.getName().equals("getException") ? thrown : v.get(m.getName()));
    }

    @Test
    void aLineCarriesTimeLevelBundleLoggerAndMessageThenTheStackTrace() {
        String line = LogLine.format(entry(LogLevel.WARN, "ib-core", "org.jrdma.ib.core", "rxe0: client left",
                new IllegalStateException("boom")));
        String[] lines = line.split(System.lineSeparator());
        assertTrue(lines[0].matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.123 WARN  \\[ib-core\\] "
                + "org\\.jrdma\\.ib\\.core: rxe0: client left"), lines[0]);
        assertEquals("java.lang.IllegalStateException: boom", lines[1]);
        assertTrue(lines[2].startsWith("\tat "), lines[2]);
        assertTrue(LogLine.format(entry(LogLevel.DEBUG, "hw-rxe", "org.jrdma.hw.rxe", "m", null))
                .contains(" DEBUG [hw-rxe] org.jrdma.hw.rxe: m"));
    }

    @Test
    void everyEntryGoesToTheRingAndTheFile() throws Exception {
        LogRing ring = new LogRing(10);
        Path f = dir.resolve("log/jrdma.log");
        try (RollingFile file = new RollingFile(f, 1 << 20, 2)) {
            LogSink sink = new LogSink(ring, file, null, e -> true);
            sink.logged(entry(LogLevel.INFO, "hw-rxe", "org.jrdma.hw.rxe", "one", null));
            sink.logged(entry(LogLevel.DEBUG, "hw-rxe", "org.jrdma.hw.rxe", "two", null));
            List<String> inFile = Files.readAllLines(f);
            assertEquals(ring.last(10), inFile);
            assertEquals(2, inFile.size());
            assertTrue(inFile.get(1).endsWith("DEBUG [hw-rxe] org.jrdma.hw.rxe: two"), inFile.get(1));
        }
    }

    @Test
    void entriesTheFilterRefusesGoNowhere() throws Exception {
        LogRing ring = new LogRing(10);
        LogSink sink = new LogSink(ring, null, null, e -> !e.getLoggerName().startsWith("Events."));
        sink.logged(entry(LogLevel.INFO, "hw-rxe", "Events.Bundle.hw-rxe", "BundleEvent STARTED", null));
        sink.logged(entry(LogLevel.INFO, "hw-rxe", "org.jrdma.hw.rxe", "kept", null));
        assertEquals(1, ring.last(10).size());
        assertTrue(ring.last(10).get(0).endsWith("kept"));
    }

    @Test
    void batchModePrintsOnlyErrorsAndNotTheFrameworksEvents() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        LogSink sink = new LogSink(new LogRing(10), null, new PrintStream(err, true, StandardCharsets.UTF_8), e -> true);
        sink.logged(entry(LogLevel.WARN, "org.apache.felix.scr", "org.apache.felix.scr.impl", "a warning", null));
        sink.logged(entry(LogLevel.ERROR, "org.apache.felix.framework", "Events.Framework", "FrameworkEvent ERROR", null));
        sink.logged(entry(LogLevel.ERROR, "org.apache.felix.scr", "org.apache.felix.scr.impl", "activate failed", null));
        String out = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, out.split(System.lineSeparator()).length, out);
        assertTrue(out.contains("ERROR [org.apache.felix.scr] org.apache.felix.scr.impl: activate failed"), out);
    }
}
