package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;

import org.jrdma.ib.core.Gid;
import org.junit.jupiter.api.Test;

/** The libc behaviours the tools' options and output depend on. */
class CLibTest {
    @Test
    void strtolBase0() {
        assertEquals(18515, CLib.strtol("18515"));
        assertEquals(0x10, CLib.strtol("0x10"));
        assertEquals(8, CLib.strtol("010"));
        assertEquals(0, CLib.strtol("abc"));
        assertEquals(12, CLib.strtol("  12abc"));
        assertEquals(-1, CLib.strtol("-1"));
        assertEquals(0, CLib.strtol("0x"));
        assertEquals(0, CLib.strtol("09"), "octal stops at 9");
        assertEquals(Long.MAX_VALUE, CLib.strtol("99999999999999999999"));
        assertEquals(-1L, CLib.strtoul("-1"), "ULONG_MAX");
        assertEquals(0xffffffffL, CLib.strtoul("-1") & 0xffffffffL, "(unsigned int) ULONG_MAX");
        assertEquals(-1L, CLib.strtoul("99999999999999999999999"));
    }

    @Test
    void printfPointTwoF() {
        assertEquals("0.12", CLib.f2(0.125), "half-even on the exact binary value, as glibc");
        assertEquals("0.38", CLib.f2(0.375));
        assertEquals("2544.67", CLib.f2(7634 / 3.0f));
        assertEquals("0.01", CLib.f2(0.0076));
        assertEquals("inf", CLib.f2(1.0 / 0));
        assertEquals("-nan", CLib.f2(0.0 / 0));
        assertEquals("-0.00", CLib.f2(-0.0));
        assertEquals("1234567.00", CLib.f2(1234567));
    }

    @Test
    void inetNtop6AsGlibc() throws Exception {
        assertEquals("::", ntop("::"));
        assertEquals("::ffff:192.0.2.10", ntop("::ffff:192.0.2.10"));
        assertEquals("fe80::2:c903:0:1", ntop("fe80::2:c903:0:1"));
        assertEquals("::1", ntop("::1"));
        assertEquals("::2", CLib.inetNtop6(raw(0, 0, 0, 0, 0, 0, 0, 2)), "glibc: the run covers word 6");
        assertEquals("::ffff:0.0.0.0", CLib.inetNtop6(raw(0, 0, 0, 0, 0, 0xffff, 0, 0)));
        assertEquals("::1.2.3.4", CLib.inetNtop6(raw(0, 0, 0, 0, 0, 0, 0x0102, 0x0304)));
        assertEquals("1::", CLib.inetNtop6(raw(1, 0, 0, 0, 0, 0, 0, 0)));
        assertEquals("1:0:1::1", CLib.inetNtop6(raw(1, 0, 1, 0, 0, 0, 0, 1)), "the longest run");
        assertEquals("1::1:0:0:1:0", CLib.inetNtop6(raw(1, 0, 0, 1, 0, 0, 1, 0)), "the first of equal runs");
        assertEquals("1:0:2:0:3:0:4:0", CLib.inetNtop6(raw(1, 0, 2, 0, 3, 0, 4, 0)), "a single zero is not compressed");
        assertEquals("fe80::1", CLib.inetNtop6(Gid.of(Gid.DEFAULT_SUBNET_PREFIX, 1).raw()));
    }

    static String ntop(String text) throws Exception {
        byte[] a = InetAddress.getByName(text).getAddress();
        return CLib.inetNtop6(a.length == 16 ? a : Gid.of(InetAddress.getByName(text)).raw());
    }

    static byte[] raw(int... words) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[2 * i] = (byte) (words[i] >> 8);
            b[2 * i + 1] = (byte) words[i];
        }
        return b;
    }
}
