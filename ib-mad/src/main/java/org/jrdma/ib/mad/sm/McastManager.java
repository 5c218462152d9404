package org.jrdma.ib.mad.sm;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jrdma.ib.mad.Mad;

/**
 * The SM's multicast manager (OpenSM's {@code osm_mcast_mgr.c}): from the SA's groups it computes, per switch,
 * the ports that lead to the receiving members of each MLID and writes the switch's MulticastForwardingTable
 * with SubnSet(MFT) SMPs, one per (block, position) whose masks changed: AttributeModifier = position &lt;&lt; 28 |
 * block, a block being 32 MLIDs from {@code 0xC000 + 32 * block}, a position 16 ports ({@code 16 * position ..}).
 * On the loopback there is one switch, one hop from the SM, and every CA port hangs off it (switch port = the
 * port's link; the SM's own port is the switch's LocalPortNum when it answers NodeInfo), so the spanning tree of
 * a group is that one switch with its member ports. Runs on the SM thread.
 */
final class McastManager {
    static final int ATTR_SWITCH_INFO = 0x0012;
    static final int ATTR_MFT = 0x001b;
    static final int NODE_TYPE_SWITCH = 2;
    static final int MLID_BASE = 0xc000;
    /** Offsets in NodeInfo. */
    private static final int NI_NODE_TYPE = 2;
    private static final int NI_NUM_PORTS = 3;
    private static final int NI_NODE_GUID = 12;
    private static final int NI_LOCAL_PORT = 36;

    /** What the SM knows of the switch: its GUID, port count, the port the SM hangs on; 0 = none found. */
    private long switchGuid;
    private int numPorts;
    private int smPort;
    private int mftCap;
    /** What the switch holds, as last written (block << 4 | position to 32 masks). */
    private final Map<Integer, char[]> written = new HashMap<>();
    private volatile long smpsSent;

    /** The switch's NodeInfo data from the sweep (null: none answered); false if it is no switch. */
    boolean found(byte[] nodeInfo, byte[] switchInfo) {
        if (nodeInfo == null || (nodeInfo[NI_NODE_TYPE] & 0xff) != NODE_TYPE_SWITCH || switchInfo == null) {
            switchGuid = 0;
            written.clear();
            return false;
        }
        long guid = java.nio.ByteBuffer.wrap(nodeInfo).getLong(NI_NODE_GUID);
        if (guid != switchGuid) {
            written.clear(); // a new switch: its table is unknown, write every block we use
        }
        switchGuid = guid;
        numPorts = nodeInfo[NI_NUM_PORTS] & 0xff;
        smPort = nodeInfo[NI_LOCAL_PORT] & 0xff;
        mftCap = java.nio.ByteBuffer.wrap(switchInfo).getShort(4) & 0xffff;
        return true;
    }

    long switchGuid() {
        return switchGuid;
    }

    /** SubnSet(MFT) SMPs sent so far. */
    long smpsSent() {
        return smpsSent;
    }

    /** Writes what changed; {@code portOf} gives a member port GUID's switch port (0: unknown). */
    void program(Map<Integer, Set<Long>> forwarding, java.util.function.ToIntFunction<Long> portOf, Smp smp) {
        if (switchGuid == 0) {
            return;
        }
        int positions = (numPorts + 1 + 15) / 16;
        Map<Integer, char[]> want = new HashMap<>();
        for (Map.Entry<Integer, Set<Long>> e : forwarding.entrySet()) {
            int i = e.getKey() - MLID_BASE;
            if (i < 0 || i >= mftCap) {
                continue; // past MulticastFDBCap: the switch cannot forward it
            }
            for (long guid : e.getValue()) {
                int port = portOf.applyAsInt(guid);
                if (port > 0 && port <= numPorts) {
                    want.computeIfAbsent(i / 32 << 4 | port / 16, k -> new char[32])[i % 32] |= 1 << port % 16;
                }
            }
        }
        Set<Integer> keys = new TreeSet<>(want.keySet());
        keys.addAll(written.keySet());
        if (written.isEmpty()) {
            for (int p = 0; p < positions; p++) {
                keys.add(p); // block 0 of a new switch: the table it starts with is the SM's
            }
        }
        for (int key : keys) {
            char[] masks = want.getOrDefault(key, new char[32]);
            char[] have = written.get(key);
            if (have != null && Arrays.equals(have, masks)) {
                continue;
            }
            byte[] data = new byte[64];
            for (int e = 0; e < 32; e++) {
                data[2 * e] = (byte) (masks[e] >>> 8);
                data[2 * e + 1] = (byte) masks[e];
            }
            long mod = (long) (key & 0xf) << 28 | key >>> 4;
            smpsSent++;
            Mad r = smp.set(ATTR_MFT, mod, data);
            if (r != null && Arrays.equals(Arrays.copyOfRange(r.bytes(), 64, 128), data)) {
                written.put(key, masks);
            } else {
                written.remove(key); // unknown now: written again on the next change or sweep
            }
        }
    }

    /** The SM's own port on the switch. */
    int smPort() {
        return smPort;
    }

    /** A SubnSet to the switch's SMA: the answer, or null (no answer, or an error status). */
    @FunctionalInterface
    interface Smp {
        Mad set(int attr, long mod, byte[] data);
    }
}
