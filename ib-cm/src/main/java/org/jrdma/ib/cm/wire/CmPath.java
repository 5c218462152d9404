package org.jrdma.ib.cm.wire;

import java.util.Objects;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.mad.Mad;

/**
 * A path of a REQ (IBTA table 106, the primary path at message byte 52 and the alternate one at 96; 44
 * bytes each): LIDs, GIDs, flow label, packet rate, traffic class, hop limit, SL, subnet local and the local
 * ACK timeout, as {@code cm_format_req} fills them from a {@code sa_path_rec}.
 *
 * <pre>
 *  +0  local port LID (16)           +2  remote port LID (16)
 *  +4  local port GID (128)          +20 remote port GID (128)
 *  +36 flow label (20) | rsvd (6) | packet rate (6)
 *  +40 traffic class (8)             +41 hop limit (8)
 *  +42 SL (4) | subnet local (1) | rsvd (3)
 *  +43 local ACK timeout (5) | rsvd (3)     (alternate path: bit 5 of byte 139 is SAP supported)
 * </pre>
 */
public final class CmPath {
    static final int SIZE = 44;

    private int localLid;
    private int remoteLid;
    private Gid localGid = Gid.ZERO;
    private Gid remoteGid = Gid.ZERO;
    private int flowLabel;
    private int packetRate;
    private int trafficClass;
    private int hopLimit;
    private int sl;
    private boolean subnetLocal;
    private int localAckTimeout;

    public int localLid() { return localLid; }
    public CmPath localLid(int v) { localLid = Wire.check("local port LID", v, 16); return this; }
    public int remoteLid() { return remoteLid; }
    public CmPath remoteLid(int v) { remoteLid = Wire.check("remote port LID", v, 16); return this; }
    public Gid localGid() { return localGid; }
    public CmPath localGid(Gid v) { localGid = Objects.requireNonNull(v, "local port GID"); return this; }
    public Gid remoteGid() { return remoteGid; }
    public CmPath remoteGid(Gid v) { remoteGid = Objects.requireNonNull(v, "remote port GID"); return this; }
    public int flowLabel() { return flowLabel; }
    public CmPath flowLabel(int v) { flowLabel = Wire.check("flow label", v, 20); return this; }
    /** {@code enum ib_rate}; 0 is {@code IB_RATE_PORT_CURRENT} (what Linux sends over RoCE). */
    public int packetRate() { return packetRate; }
    public CmPath packetRate(int v) { packetRate = Wire.check("packet rate", v, 6); return this; }
    public int trafficClass() { return trafficClass; }
    public CmPath trafficClass(int v) { trafficClass = Wire.check("traffic class", v, 8); return this; }
    public int hopLimit() { return hopLimit; }
    public CmPath hopLimit(int v) { hopLimit = Wire.check("hop limit", v, 8); return this; }
    public int sl() { return sl; }
    public CmPath sl(int v) { sl = Wire.check("SL", v, 4); return this; }
    public boolean subnetLocal() { return subnetLocal; }
    public CmPath subnetLocal(boolean v) { subnetLocal = v; return this; }
    /** The 5-bit local ACK timeout (4.096 us * 2^t), for the QP's {@code timeout}. */
    public int localAckTimeout() { return localAckTimeout; }
    public CmPath localAckTimeout(int v) { localAckTimeout = Wire.check("local ACK timeout", v, 5); return this; }

    static CmPath read(Mad m, int p) {
        long fl = m.u32(p + 36);
        return new CmPath()
                .localLid(m.u16(p))
                .remoteLid(m.u16(p + 2))
                .localGid(Wire.gid(m, p + 4))
                .remoteGid(Wire.gid(m, p + 20))
                .flowLabel((int) (fl >>> 12))
                .packetRate((int) (fl & 0x3f))
                .trafficClass(m.u8(p + 40))
                .hopLimit(m.u8(p + 41))
                .sl(m.u8(p + 42) >>> 4)
                .subnetLocal((m.u8(p + 42) & 0x08) != 0)
                .localAckTimeout(m.u8(p + 43) >>> 3);
    }

    void write(Mad m, int p) {
        m.u16(p, localLid);
        m.u16(p + 2, remoteLid);
        Wire.gid(m, p + 4, localGid);
        Wire.gid(m, p + 20, remoteGid);
        m.u32(p + 36, (long) flowLabel << 12 | packetRate);
        m.u8(p + 40, trafficClass);
        m.u8(p + 41, hopLimit);
        m.u8(p + 42, sl << 4 | Wire.bit(subnetLocal) << 3);
        m.u8(p + 43, localAckTimeout << 3);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CmPath)) {
            return false;
        }
        CmPath p = (CmPath) o;
        return localLid == p.localLid && remoteLid == p.remoteLid && localGid.equals(p.localGid)
                && remoteGid.equals(p.remoteGid) && flowLabel == p.flowLabel && packetRate == p.packetRate
                && trafficClass == p.trafficClass && hopLimit == p.hopLimit && sl == p.sl
                && subnetLocal == p.subnetLocal && localAckTimeout == p.localAckTimeout;
    }

    @Override
    public int hashCode() {
        return Objects.hash(localLid, remoteLid, localGid, remoteGid, flowLabel, packetRate, trafficClass, hopLimit,
                sl, subnetLocal, localAckTimeout);
    }

    @Override
    public String toString() {
        return String.format("path slid 0x%04x dlid 0x%04x sgid %s dgid %s flow_label 0x%05x rate %d tclass %d"
                        + " hop_limit %d sl %d subnet_local %d ack_timeout %d",
                localLid, remoteLid, localGid.toCompressedString(), remoteGid.toCompressedString(), flowLabel,
                packetRate, trafficClass, hopLimit, sl, Wire.bit(subnetLocal), localAckTimeout);
    }
}
