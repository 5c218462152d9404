package org.jrdma.ib.core.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** printf conversions as glibc prints them. */
class PrintfTest {
    @Test
    void pointTwoF() {
        assertEquals("0.12", Printf.f2(0.125), "half-even on the exact binary value, as glibc");
        assertEquals("0.38", Printf.f2(0.375));
        assertEquals("2544.67", Printf.f2(7634 / 3.0f));
        assertEquals("0.01", Printf.f2(0.0076));
        assertEquals("inf", Printf.f2(1.0 / 0));
        assertEquals("-inf", Printf.f2(-1.0 / 0));
        assertEquals("-nan", Printf.f2(0.0 / 0));
        assertEquals("-0.00", Printf.f2(-0.0));
        assertEquals("-0.00", Printf.f2(-0.001), "the sign of a value that rounds to zero");
        assertEquals("1234567.00", Printf.f2(1234567));
    }

    @Test
    void alternateHexAsPerftestPrintsAddressLines() {
        assertEquals("0000", Printf.altHex(0, 4));
        assertEquals("0x01", Printf.altHex(1, 4));
        assertEquals("0x001f", Printf.altHex(0x1f, 6));
        assertEquals("0x9dca5", Printf.altHex(0x9dca5, 6));
        assertEquals("0x00109e", Printf.altHex(0x109e, 8));
        assertEquals("0x0055c2aa433000", Printf.altHex(0x55c2aa433000L, 16));
    }

    @Test
    void zeroPaddedHexAndTheCLocale() {
        assertEquals("000a", Printf.hex(10, 4));
        assertEquals("123456789", Printf.hex(0x123456789L, 4));
        assertEquals("1.50", Printf.f("%.2f", 1.5));
        assertEquals("1234567", Printf.f("%d", 1234567), "no grouping");
    }
}
