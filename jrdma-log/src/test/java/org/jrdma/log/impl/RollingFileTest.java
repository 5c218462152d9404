package org.jrdma.log.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RollingFileTest {

    @TempDir
    Path dir;

    private static final int NL = System.lineSeparator().length();

    @Test
    void appendsLinesAndRollsWhenTheNextLineWouldNotFit() throws IOException {
        Path f = dir.resolve("log/jrdma.log");   // the folder is made
        try (RollingFile r = new RollingFile(f, 3 * (4 + NL), 2)) {
            r.write("aaaa");
            r.write("bbbb");
            r.write("cccc");
            assertEquals(List.of("aaaa", "bbbb", "cccc"), Files.readAllLines(f));
            assertFalse(Files.exists(r.rolled(1)));
            r.write("dddd");   // 4 lines do not fit: the three go to .1
            assertEquals(List.of("dddd"), Files.readAllLines(f));
            assertEquals(List.of("aaaa", "bbbb", "cccc"), Files.readAllLines(r.rolled(1)));
            for (String s : List.of("eeee", "ffff", "gggg", "hhhh", "iiii", "jjjj", "kkkk")) {
                r.write(s);
            }
            // .1 and .2 kept, the oldest (aaaa..cccc) dropped
            assertEquals(List.of("jjjj", "kkkk"), Files.readAllLines(f));
            assertEquals(List.of("gggg", "hhhh", "iiii"), Files.readAllLines(r.rolled(1)));
            assertEquals(List.of("dddd", "eeee", "ffff"), Files.readAllLines(r.rolled(2)));
            assertFalse(Files.exists(r.rolled(3)));
        }
    }

    @Test
    void continuesAnExistingFileAndCountsItsSize() throws IOException {
        Path f = dir.resolve("jrdma.log");
        Files.writeString(f, "old1" + System.lineSeparator() + "old2" + System.lineSeparator());
        try (RollingFile r = new RollingFile(f, 3 * (4 + NL), 1)) {
            r.write("new1");
            assertEquals(List.of("old1", "old2", "new1"), Files.readAllLines(f));
            r.write("new2");
            assertEquals(List.of("new2"), Files.readAllLines(f));
            assertEquals(List.of("old1", "old2", "new1"), Files.readAllLines(r.rolled(1)));
        }
    }

    @Test
    void aLineLongerThanTheLimitIsWrittenWholeIntoAFreshFile() throws IOException {
        Path f = dir.resolve("jrdma.log");
        String big = "x".repeat(100);
        try (RollingFile r = new RollingFile(f, 10, 1)) {
            r.write("a");
            r.write(big);
            assertEquals(List.of(big), Files.readAllLines(f));
            r.write("b");
            assertEquals(List.of("b"), Files.readAllLines(f));
            assertEquals(List.of(big), Files.readAllLines(r.rolled(1)));
        }
    }

    @Test
    void keepZeroTruncatesInsteadOfRolling() throws IOException {
        Path f = dir.resolve("jrdma.log");
        try (RollingFile r = new RollingFile(f, 2 + NL, 0)) {
            r.write("ab");
            r.write("cd");
            assertEquals(List.of("cd"), Files.readAllLines(f));
            assertFalse(Files.exists(r.rolled(1)));
        }
    }

    @Test
    void writesUtf8AndCountsBytesNotChars() throws IOException {
        Path f = dir.resolve("jrdma.log");
        try (RollingFile r = new RollingFile(f, 2 * (4 + NL), 1)) {
            r.write("µµ");   // 4 bytes
            r.write("éé");   // 4 bytes: fits
            assertEquals(2 * (4 + NL), Files.size(f));
            r.write("z");
            assertEquals(List.of("µµ", "éé"), Files.readAllLines(r.rolled(1), StandardCharsets.UTF_8));
        }
    }

    @Test
    void refusesBadLimitsAndWritesAfterClose() throws IOException {
        Path f = dir.resolve("jrdma.log");
        assertThrows(IllegalArgumentException.class, () -> new RollingFile(f, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new RollingFile(f, 10, -1));
        RollingFile r = new RollingFile(f, 100, 1);
        r.close();
        IOException e = assertThrows(IOException.class, () -> r.write("late"));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
