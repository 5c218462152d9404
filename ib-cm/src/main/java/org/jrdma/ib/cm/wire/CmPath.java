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
    static final CmField LOCAL_LID = CmField.u16("local port LID", 0);
    static final CmField REMOTE_LID = CmField.u16("remote port LID", 2);
    static final int LOCAL_GID = 4;
    static final int REMOTE_GID = 20;
    static final CmField FLOW_LABEL = CmField.u32("flow label", 36, 12, 20);
    static final CmField PACKET_RATE = CmField.u32("packet rate", 36, 0, 6);
    static final CmField TRAFFIC_CLASS = CmField.u8("traffic class", 40, 0, 8);
    static final CmField HOP_LIMIT = CmField.u8("hop limit", 41, 0, 8);
    static final CmField SL = CmField.u8("SL", 42, 4, 4);
    static final CmField SUBNET_LOCAL = CmField.u8("subnet local", 42, 3, 1);
    static final CmField LOCAL_ACK_TIMEOUT = CmField.u8("local ACK timeout", 43, 3, 5);

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
    public CmPath localLid(int v) { localLid = LOCAL_LID.check(v); return this; }
    public int remoteLid() { return remoteLid; }
    public CmPath remoteLid(int v) { remoteLid = REMOTE_LID.check(v); return this; }
    public Gid localGid() { return localGid; }
    public CmPath localGid(Gid v) { localGid = Objects.requireNonNull(v, "local port GID"); return this; }
    public Gid remoteGid() { return remoteGid; }
    public CmPath remoteGid(Gid v) { remoteGid = Objects.requireNonNull(v, "remote port GID"); return this; }
    public int flowLabel() { return flowLabel; }
    public CmPath flowLabel(int v) { flowLabel = FLOW_LABEL.check(v); return this; }
    /** {@code enum ib_rate}; 0 is {@code IB_RATE_PORT_CURRENT} (what Linux sends over RoCE). */
    public int packetRate() { return packetRate; }
    public CmPath packetRate(int v) { packetRate = PACKET_RATE.check(v); return this; }
    public int trafficClass() { return trafficClass; }
    public CmPath trafficClass(int v) { trafficClass = TRAFFIC_CLASS.check(v); return this; }
    public int hopLimit() { return hopLimit; }
    public CmPath hopLimit(int v) { hopLimit = HOP_LIMIT.check(v); return this; }
    public int sl() { return sl; }
    public CmPath sl(int v) { sl = SL.check(v); return this; }
    public boolean subnetLocal() { return subnetLocal; }
    public CmPath subnetLocal(boolean v) { subnetLocal = v; return this; }
    /** The 5-bit local ACK timeout (4.096 us * 2^t), for the QP's {@code timeout}. */
    public int localAckTimeout() { return localAckTimeout; }
    public CmPath localAckTimeout(int v) { localAckTimeout = LOCAL_ACK_TIMEOUT.check(v); return this; }

    /** The path at byte {@code p} of the CM message. */
    static CmPath read(Mad m, int p) {
        return new CmPath().localLid(LOCAL_LID.get(m, p)).remoteLid(REMOTE_LID.get(m, p))
                .localGid(Wire.gid(m, CmField.at(p + LOCAL_GID))).remoteGid(Wire.gid(m, CmField.at(p + REMOTE_GID)))
                .flowLabel(FLOW_LABEL.get(m, p)).packetRate(PACKET_RATE.get(m, p))
                .trafficClass(TRAFFIC_CLASS.get(m, p)).hopLimit(HOP_LIMIT.get(m, p)).sl(SL.get(m, p))
                .subnetLocal(SUBNET_LOCAL.get(m, p) != 0).localAckTimeout(LOCAL_ACK_TIMEOUT.get(m, p));
    }

    /** Writes the path at byte {@code p} of the CM message. */
    void write(Mad m, int p) {
        LOCAL_LID.set(m, p, localLid);
        REMOTE_LID.set(m, p, remoteLid);
        Wire.gid(m, CmField.at(p + LOCAL_GID), localGid);
        Wire.gid(m, CmField.at(p + REMOTE_GID), remoteGid);
        FLOW_LABEL.set(m, p, flowLabel);
        PACKET_RATE.set(m, p, packetRate);
        TRAFFIC_CLASS.set(m, p, trafficClass);
        HOP_LIMIT.set(m, p, hopLimit);
        SL.set(m, p, sl);
        SUBNET_LOCAL.set(m, p, Wire.bit(subnetLocal));
        LOCAL_ACK_TIMEOUT.set(m, p, localAckTimeout);
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
