package org.jrdma.ib.core.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.jrdma.ib.core.cli.CNum.Parsed;
import org.junit.jupiter.api.Test;

/** strtol / strtoul / atoi as glibc parses them (the values and end pointers checked against glibc 2.36). */
class CNumTest {
    @Test
    void strtolBase0TakesThePrefix() {
        assertEquals(18515, CNum.strtol("18515"));
        assertEquals(0x10, CNum.strtol("0x10"));
        assertEquals(0x10, CNum.strtol("0X10"));
        assertEquals(8, CNum.strtol("010"));
        assertEquals(-8, CNum.strtol("-010"));
        assertEquals(-0x1f, CNum.strtol("-0x1f"));
        assertEquals(0, CNum.strtol("09"), "octal stops at 9");
        assertEquals(0, CNum.strtol("0x"), "no hex digit: the 0, ending at the x");
        assertEquals(0, CNum.strtol("0xg"));
    }

    @Test
    void strtolSkipsCSpaceAndASign() {
        assertEquals(12, CNum.strtol("  12abc"));
        assertEquals(12, CNum.strtol("\t\n\u000b\f\r12"));
        assertEquals(0, CNum.strtol("\u00a012"), "isspace is C's, not Unicode's");
        assertEquals(0, CNum.strtol("\u001c12"), "Java's whitespace, not C's");
        assertEquals(5, CNum.strtol("+5"));
        assertEquals(-1, CNum.strtol("-1"));
        assertEquals(0, CNum.strtol("abc"));
        assertEquals(0, CNum.strtol("- 1"), "no space after the sign");
        assertEquals(0, CNum.strtol(""));
        assertEquals(0, CNum.strtol("\u0661"), "digits are ASCII only");
    }

    @Test
    void strtolSaturatesAtTheLongRange() {
        assertEquals(Long.MAX_VALUE, CNum.strtol("9223372036854775807"));
        assertEquals(Long.MAX_VALUE, CNum.strtol("9223372036854775808"));
        assertEquals(Long.MAX_VALUE, CNum.strtol("99999999999999999999"));
        assertEquals(Long.MIN_VALUE, CNum.strtol("-9223372036854775808"));
        assertEquals(Long.MIN_VALUE, CNum.strtol("-9223372036854775809"), "LONG_MIN, not -LONG_MAX");
        assertEquals(Long.MIN_VALUE, CNum.strtol("-0xffffffffffffffffff"));
    }

    @Test
    void strtoulNegatesInUnsignedArithmetic() {
        assertEquals(-1L, CNum.strtoul("-1"), "ULONG_MAX");
        assertEquals(0xffffffffL, CNum.strtoul("-1") & 0xffffffffL, "(unsigned int) ULONG_MAX");
        assertEquals(-1L, CNum.strtoul("99999999999999999999999"));
        assertEquals(0xffffffffffffffffL, CNum.strtoul("0xffffffffffffffff"));
        assertEquals(Long.MIN_VALUE, CNum.strtoul("9223372036854775808"));
    }

    @Test
    void theEndPointer() {
        assertEquals(new Parsed(12, 4), CNum.strtol("  12abc", 0));
        assertEquals(new Parsed(0, 1), CNum.strtol("0x", 0), "end after the 0");
        assertEquals(new Parsed(0, 0), CNum.strtol("  -", 0), "no digits: end = s");
        assertEquals(new Parsed(0x1f, 4), CNum.strtol("0x1fz", 0));
        assertEquals(new Parsed(10, 3), CNum.strtol("010", 10), "base 10 ignores the octal prefix");
        assertEquals(new Parsed(0x1f, 4), CNum.strtol("0x1f", 16), "base 16 takes the 0x prefix");
    }

    @Test
    void strtolWholeWantsTheWholeWord() {
        assertEquals(0x40L, CNum.strtolWhole("0x40"));
        assertEquals(-3L, CNum.strtolWhole("-3"));
        assertEquals(0L, CNum.strtolWhole("0"));
        assertNull(CNum.strtolWhole("64K"));
        assertEquals(0L, CNum.strtolWhole(""), "end = s, and *end is the NUL, as C sees it");
        assertNull(CNum.strtolWhole("0x"));
        assertNull(CNum.strtolWhole("12 "));
    }

    @Test
    void atoiIsBase10KeepingTheLow32Bits() {
        assertEquals(42, CNum.atoi("  42abc"));
        assertEquals(-7, CNum.atoi("-7"));
        assertEquals(0, CNum.atoi("x1"));
        assertEquals(10, CNum.atoi("010"), "no octal");
        assertEquals(0, CNum.atoi("0x10"), "no hex");
        assertEquals(-1, CNum.atoi("4294967295"), "strtol, then the low 32 bits");
        assertEquals(-1, CNum.atoi("99999999999999999999"), "LONG_MAX, low 32 bits");
        assertEquals(0, CNum.atoi("-99999999999999999999"), "LONG_MIN, low 32 bits");
    }
}
