package org.jrdma.ib.cm.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

class CmaHeaderTest {
    @Test
    void ipv4AsRpingSendsIt() throws Exception {
        CmaHeader h = new CmaHeader(InetAddress.getByName("192.0.2.10"), 0x8735, InetAddress.getByName("192.0.2.11"));
        byte[] user = "hello".getBytes();
        byte[] pd = h.encode(user);
        assertEquals(92, pd.length);
        assertEquals(0x00, pd[0]);
        assertEquals(0x40, pd[1]);
        assertEquals((byte) 0x87, pd[2]);
        assertEquals((byte) 0x35, pd[3]);
        assertArrayEquals(new byte[12], Arrays.copyOfRange(pd, 4, 16));
        assertArrayEquals(new byte[] {(byte) 192, 0, 2, 10}, Arrays.copyOfRange(pd, 16, 20));
        assertArrayEquals(new byte[12], Arrays.copyOfRange(pd, 20, 32));
        assertArrayEquals(new byte[] {(byte) 192, 0, 2, 11}, Arrays.copyOfRange(pd, 32, 36));
        assertArrayEquals(user, Arrays.copyOfRange(pd, 36, 41));
        assertArrayEquals(new byte[92 - 41], Arrays.copyOfRange(pd, 41, 92));
        CmaHeader d = CmaHeader.decode(pd);
        assertEquals(h, d);
        assertEquals(4, d.ipVersion());
        assertEquals(56, CmaHeader.userData(pd).length);
        assertEquals("cma_hdr v0 ipv4 192.0.2.10:34613 -> 192.0.2.11", d.toString());
    }

    @Test
    void ipv6() throws Exception {
        InetAddress src = InetAddress.getByName("2001:db8::1");
        InetAddress dst = InetAddress.getByName("fe80::5054:ff:fec0:2");
        CmaHeader h = new CmaHeader(src, 65535, dst);
        byte[] pd = h.encode(new byte[56]);
        assertEquals(0x60, pd[1]);
        assertArrayEquals(src.getAddress(), Arrays.copyOfRange(pd, 4, 20));
        assertArrayEquals(dst.getAddress(), Arrays.copyOfRange(pd, 20, 36));
        CmaHeader d = CmaHeader.decode(pd);
        assertEquals(6, d.ipVersion());
        assertEquals(65535, d.port());
        assertEquals(src, d.srcAddr());
        assertEquals(dst, d.dstAddr());
    }

    @Test
    void sidrVariant() throws Exception {
        CmaHeader h = new CmaHeader(InetAddress.getByName("10.0.0.1"), 1234, InetAddress.getByName("10.0.0.2"));
        byte[] pd = h.encodeSidr(new byte[180]);
        assertEquals(216, pd.length);
        assertEquals(h, CmaHeader.decode(pd));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> h.encodeSidr(new byte[181]));
        assertTrue(e.getMessage().contains("at most 180"), e.getMessage());
        // and it goes into a SIDR_REQ as is
        assertArrayEquals(pd, new SidrReq().privateData(pd).privateData());
    }

    @Test
    void limitsAndErrors() throws Exception {
        CmaHeader h = new CmaHeader(InetAddress.getByName("10.0.0.1"), 1, InetAddress.getByName("10.0.0.2"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> h.encode(new byte[57]));
        assertTrue(e.getMessage().contains("at most 56 bytes, not 57"), e.getMessage());
        assertEquals(92, h.encode(null).length);

        byte[] pd = h.encode(new byte[0]);
        pd[0] = 1;
        e = assertThrows(IllegalArgumentException.class, () -> CmaHeader.decode(pd));
        assertTrue(e.getMessage().contains("CMA version 1"), e.getMessage());
        byte[] pd2 = h.encode(new byte[0]);
        pd2[1] = 0x50;
        e = assertThrows(IllegalArgumentException.class, () -> CmaHeader.decode(pd2));
        assertTrue(e.getMessage().contains("IP version 5"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CmaHeader.decode(new byte[35]));
        assertThrows(IllegalArgumentException.class,
                () -> new CmaHeader(InetAddress.getByName("10.0.0.1"), 1, InetAddress.getByName("::1")));
        assertThrows(IllegalArgumentException.class,
                () -> new CmaHeader(InetAddress.getByName("10.0.0.1"), 65536, InetAddress.getByName("10.0.0.2")));
    }
}
