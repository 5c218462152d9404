package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;

import org.jrdma.ib.core.Gid;
import org.junit.jupiter.api.Test;

/** glibc's inet_ntop(AF_INET6), as the tools print GIDs (strtol and %.2f: ib-core's CNumTest, PrintfTest). */
class InetNtopTest {
    @Test
    void inetNtop6AsGlibc() throws Exception {
        assertEquals("::", ntop("::"));
        assertEquals("::ffff:192.0.2.10", ntop("::ffff:192.0.2.10"));
        assertEquals("fe80::2:c903:0:1", ntop("fe80::2:c903:0:1"));
        assertEquals("::1", ntop("::1"));
        assertEquals("::2", InetNtop.inetNtop6(raw(0, 0, 0, 0, 0, 0, 0, 2)), "glibc: the run covers word 6");
        assertEquals("::ffff:0.0.0.0", InetNtop.inetNtop6(raw(0, 0, 0, 0, 0, 0xffff, 0, 0)));
        assertEquals("::1.2.3.4", InetNtop.inetNtop6(raw(0, 0, 0, 0, 0, 0, 0x0102, 0x0304)));
        assertEquals("1::", InetNtop.inetNtop6(raw(1, 0, 0, 0, 0, 0, 0, 0)));
        assertEquals("1:0:1::1", InetNtop.inetNtop6(raw(1, 0, 1, 0, 0, 0, 0, 1)), "the longest run");
        assertEquals("1::1:0:0:1:0", InetNtop.inetNtop6(raw(1, 0, 0, 1, 0, 0, 1, 0)), "the first of equal runs");
        assertEquals("1:0:2:0:3:0:4:0", InetNtop.inetNtop6(raw(1, 0, 2, 0, 3, 0, 4, 0)), "a single zero is not compressed");
        assertEquals("fe80::1", InetNtop.inetNtop6(Gid.of(Gid.DEFAULT_SUBNET_PREFIX, 1).raw()));
    }

    static String ntop(String text) throws Exception {
        byte[] a = InetAddress.getByName(text).getAddress();
        return InetNtop.inetNtop6(a.length == 16 ? a : Gid.of(InetAddress.getByName(text)).raw());
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
