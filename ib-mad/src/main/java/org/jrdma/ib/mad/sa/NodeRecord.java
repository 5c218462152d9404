package org.jrdma.ib.mad.sa;

import static org.jrdma.ib.mad.sa.SaWire.*;

import java.nio.charset.StandardCharsets;

/**
 * {@code ib_node_record_t} (IBTA 15.2.5.2, 108 bytes, 112 in a table): the LID of one port and the
 * NodeInfo and NodeDescription read through it. Component mask: {@link #LID} and the NodeInfo fields.
 */
public final class NodeRecord {
    public static final int ATTR_ID = 0x0011;
    public static final int SIZE = 108;
    public static final long LID = 1L;
    public static final long NODE_TYPE = 1L << 4;
    public static final long NODE_GUID = 1L << 7;
    public static final long PORT_GUID = 1L << 8;
    public static final long PORT_NUM = 1L << 12;
    public static final long NODE_DESC = 1L << 14;

    public int lid;
    public int baseVersion;
    public int classVersion;
    /** 1 CA, 2 switch, 3 router. */
    public int nodeType;
    public int numPorts;
    public long sysImageGuid;
    public long nodeGuid;
    public long portGuid;
    public int partitionCap;
    public int deviceId;
    public long revision;
    public int localPortNum;
    public int vendorId;
    public String nodeDescription = "";

    public byte[] toWire() {
        byte[] b = new byte[SIZE];
        u16(b, 0, lid);
        u8(b, 4, baseVersion);
        u8(b, 5, classVersion);
        u8(b, 6, nodeType);
        u8(b, 7, numPorts);
        u64(b, 8, sysImageGuid);
        u64(b, 16, nodeGuid);
        u64(b, 24, portGuid);
        u16(b, 32, partitionCap);
        u16(b, 34, deviceId);
        u32(b, 36, revision);
        u8(b, 40, localPortNum);
        u8(b, 41, vendorId >>> 16);
        u16(b, 42, vendorId & 0xffff);
        byte[] d = nodeDescription.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(d, 0, b, 44, Math.min(64, d.length));
        return b;
    }

    public static NodeRecord fromWire(byte[] b, int off) {
        NodeRecord r = new NodeRecord();
        r.lid = u16(b, off);
        r.baseVersion = u8(b, off + 4);
        r.classVersion = u8(b, off + 5);
        r.nodeType = u8(b, off + 6);
        r.numPorts = u8(b, off + 7);
        r.sysImageGuid = u64(b, off + 8);
        r.nodeGuid = u64(b, off + 16);
        r.portGuid = u64(b, off + 24);
        r.partitionCap = u16(b, off + 32);
        r.deviceId = u16(b, off + 34);
        r.revision = u32(b, off + 36);
        r.localPortNum = u8(b, off + 40);
        r.vendorId = u8(b, off + 41) << 16 | u16(b, off + 42);
        int end = off + 44;
        while (end < off + 108 && b[end] != 0) {
            end++;
        }
        r.nodeDescription = new String(b, off + 44, end - off - 44, StandardCharsets.US_ASCII);
        return r;
    }

    @Override
    public String toString() {
        return String.format("NodeRecord[lid %d node_guid 0x%016x port_guid 0x%016x port %d \"%s\"]", lid, nodeGuid,
                portGuid, localPortNum, nodeDescription);
    }
}
