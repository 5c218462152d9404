package org.jrdma.log.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class LogRingTest {

    @Test
    void keepsTheLastCapacityLinesOldestFirst() {
        LogRing r = new LogRing(3);
        assertEquals(List.of(), r.last(5));
        r.add("1");
        r.add("2");
        assertEquals(List.of("1", "2"), r.last(5));
        r.add("3");
        r.add("4");
        assertEquals(List.of("2", "3", "4"), r.last(10));
        assertEquals(List.of("4"), r.last(1));
        assertEquals(List.of(), r.last(0));
        assertEquals(List.of(), r.last(-1));
    }

    @Test
    void followGetsTheLastLinesThenEachNewOneUntilClosed() throws Exception {
        LogRing r = new LogRing(10);
        r.add("a");
        r.add("b");
        List<String> seen = new ArrayList<>();
        AutoCloseable h = r.follow(1, seen::add);
        r.add("c");
        h.close();
        r.add("d");
        assertEquals(List.of("b", "c"), seen);
    }

    @Test
    void refusesAnEmptyRing() {
        assertThrows(IllegalArgumentException.class, () -> new LogRing(0));
    }
}
