package org.jrdma.hw.loopback;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** The switch's SMA on SMP bytes: NodeInfo, SwitchInfo, MulticastForwardingTable Get/Set, what it refuses. */
class LoopbackSwitchTest {
    final LoopbackSwitch sw = new LoopbackSwitch(0x1122334455667788L);

    /** A directed-route SMP of one hop as an SM sends it (hop pointer 1 on arrival). */
    static ByteBuffer smp(int method, int attr, long mod) {
        ByteBuffer m = ByteBuffer.allocate(256);
        m.put(0, (byte) 1).put(1, (byte) 0x81).put(2, (byte) 1).put(3, (byte) method);
        m.put(6, (byte) 1).put(7, (byte) 1).putLong(8, 0xabcdL).putShort(16, (short) attr).putInt(20, (int) mod);
        m.putShort(32, (short) 0xffff).putShort(34, (short) 0xffff).put(129, (byte) 1);
        return m;
    }

    ByteBuffer answer(ByteBuffer req, int inPort) {
        byte[] r = sw.answer(req.array(), inPort);
        return r == null ? null : ByteBuffer.wrap(r);
    }

    @Test
    void nodeInfoSaysSwitchWithTheIngressPort() {
        ByteBuffer r = answer(smp(1, LoopbackSwitch.ATTR_NODE_INFO, 0), 3);
        assertEquals((byte) 0x81, r.get(3), "GetResp");
        assertEquals((short) 0x8000, r.getShort(4), "D bit, status 0");
        assertEquals(1, r.get(6), "hop pointer as smi.c leaves a returning SMP");
        assertEquals(3, r.get(193), "return path [1]: the port it came in on");
        assertEquals(2, r.get(64 + 2), "NodeType switch");
        assertEquals(LoopbackSwitch.NUM_PORTS, r.get(64 + 3));
        assertEquals(0x1122334455667788L, r.getLong(64 + 12));
        assertEquals(3, r.get(64 + 36), "LocalPortNum");
        assertEquals(0xabcdL, r.getLong(8), "TID kept");
        ByteBuffer nd = answer(smp(1, LoopbackSwitch.ATTR_NODE_DESC, 0), 3);
        assertEquals(LoopbackSwitch.NODE_DESC, new String(nd.array(), 64, LoopbackSwitch.NODE_DESC.length(),
                java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(0, nd.get(64 + LoopbackSwitch.NODE_DESC.length()));
    }

    @Test
    void mftSetThenGetAndForwardingPorts() {
        assertFalse(sw.programmed());
        ByteBuffer set = smp(2, LoopbackSwitch.ATTR_MFT, 1); // position 0, block 1: MLIDs 0xC020..0xC03F
        set.putShort(64 + 2 * 5, (short) 0b1010_0110); // 0xC025: ports 1, 2, 5, 7
        ByteBuffer r = answer(set, 1);
        assertEquals((short) 0x8000, r.getShort(4));
        assertEquals((short) 0b1010_0110, r.getShort(64 + 10));
        assertTrue(sw.programmed());
        ByteBuffer hi = smp(2, LoopbackSwitch.ATTR_MFT, 1L << 28 | 1); // position 1: ports 16..31
        hi.putShort(64 + 2 * 5, (short) 1); // port 16
        answer(hi, 1);
        assertArrayEquals(new int[] {1, 2, 5, 7, 16}, sw.ports(0xc025), "port 0 (the switch) left out");
        assertArrayEquals(new int[0], sw.ports(0xc024));
        ByteBuffer get = answer(smp(1, LoopbackSwitch.ATTR_MFT, 1), 1);
        assertEquals((short) 0b1010_0110, get.getShort(64 + 10));
        ByteBuffer si = answer(smp(1, LoopbackSwitch.ATTR_SWITCH_INFO, 0), 1);
        assertEquals(LoopbackSwitch.MFT_CAP, si.getShort(64 + 4) & 0xffff, "MulticastFDBCap");
        assertEquals(0xc025, si.getShort(64 + 18) & 0xffff, "MulticastFDBTop");
    }

    @Test
    void refusesWhatItDoesNotHave() {
        assertEquals((short) 0x801c, answer(smp(2, LoopbackSwitch.ATTR_MFT, 32), 1).getShort(4), "block past the cap");
        assertEquals((short) 0x801c, answer(smp(1, LoopbackSwitch.ATTR_MFT, 4L << 28), 1).getShort(4),
                "position past the ports");
        assertEquals((short) 0x800c, answer(smp(1, 0x0019, 0), 1).getShort(4), "no LFT");
        assertEquals((short) 0x800c, answer(smp(2, LoopbackSwitch.ATTR_NODE_INFO, 0), 1).getShort(4));
        ByteBuffer resp = smp(0x81, LoopbackSwitch.ATTR_NODE_INFO, 0);
        assertNull(answer(resp, 1), "a response is not answered");
        ByteBuffer lidRouted = smp(1, LoopbackSwitch.ATTR_NODE_INFO, 0).put(1, (byte) 0x01);
        assertNull(answer(lidRouted, 1), "LID-routed: the switch has no LID");
        assertFalse(sw.programmed());
        assertEquals(0, sw.ports(0xc000).length);
        assertEquals(0, sw.ports(0xbfff).length);
    }
}
