package org.jrdma.ib.mad.sa;

import static org.jrdma.ib.mad.sa.SaWire.*;

import org.jrdma.ib.core.Gid;

/**
 * {@code struct ib_sa_mcmember_rec} (IBTA 15.2.5.17, 52 bytes on the wire, 56 in a table). Component
 * mask bits are Linux's {@code IB_SA_MCMEMBER_REC_*}; join states {@code FULLMEMBER} and friends.
 */
public final class MCMemberRecord {
    public static final int ATTR_ID = 0x0038;
    public static final int SIZE = 52;
    public static final long MGID = 1L;
    public static final long PORT_GID = 1L << 1;
    public static final long QKEY = 1L << 2;
    public static final long MLID = 1L << 3;
    public static final long MTU_SELECTOR = 1L << 4;
    public static final long MTU = 1L << 5;
    public static final long TRAFFIC_CLASS = 1L << 6;
    public static final long PKEY = 1L << 7;
    public static final long RATE_SELECTOR = 1L << 8;
    public static final long RATE = 1L << 9;
    public static final long PACKET_LIFE_TIME_SELECTOR = 1L << 10;
    public static final long PACKET_LIFE_TIME = 1L << 11;
    public static final long SL = 1L << 12;
    public static final long FLOW_LABEL = 1L << 13;
    public static final long HOP_LIMIT = 1L << 14;
    public static final long SCOPE = 1L << 15;
    public static final long JOIN_STATE = 1L << 16;
    public static final long PROXY_JOIN = 1L << 17;

    /** JoinState bits. */
    public static final int FULLMEMBER_JOIN = 1;
    public static final int NONMEMBER_JOIN = 2;
    public static final int SENDONLY_NONMEMBER_JOIN = 4;

    public Gid mgid = Gid.ZERO;
    public Gid portGid = Gid.ZERO;
    public int qkey;
    public int mlid;
    public int mtuSelector;
    public int mtu;
    public int trafficClass;
    public int pkey;
    public int rateSelector;
    public int rate;
    public int packetLifeTimeSelector;
    public int packetLifeTime;
    public int sl;
    public int flowLabel;
    public int hopLimit;
    public int scope;
    public int joinState;
    public boolean proxyJoin;

    public byte[] toWire() {
        byte[] b = new byte[SIZE];
        gid(b, 0, mgid);
        gid(b, 16, portGid);
        u32(b, 32, qkey & 0xffffffffL);
        u16(b, 36, mlid);
        u8(b, 38, (mtuSelector & 3) << 6 | mtu & 0x3f);
        u8(b, 39, trafficClass);
        u16(b, 40, pkey);
        u8(b, 42, (rateSelector & 3) << 6 | rate & 0x3f);
        u8(b, 43, (packetLifeTimeSelector & 3) << 6 | packetLifeTime & 0x3f);
        u32(b, 44, (long) (sl & 0xf) << 28 | (flowLabel & 0xfffffL) << 8 | hopLimit & 0xff);
        u8(b, 48, (scope & 0xf) << 4 | joinState & 0xf);
        u8(b, 49, proxyJoin ? 0x80 : 0);
        return b;
    }

    public static MCMemberRecord fromWire(byte[] b, int off) {
        MCMemberRecord r = new MCMemberRecord();
        r.mgid = gid(b, off);
        r.portGid = gid(b, off + 16);
        r.qkey = (int) u32(b, off + 32);
        r.mlid = u16(b, off + 36);
        r.mtuSelector = u8(b, off + 38) >>> 6;
        r.mtu = u8(b, off + 38) & 0x3f;
        r.trafficClass = u8(b, off + 39);
        r.pkey = u16(b, off + 40);
        r.rateSelector = u8(b, off + 42) >>> 6;
        r.rate = u8(b, off + 42) & 0x3f;
        r.packetLifeTimeSelector = u8(b, off + 43) >>> 6;
        r.packetLifeTime = u8(b, off + 43) & 0x3f;
        long sfh = u32(b, off + 44);
        r.sl = (int) (sfh >>> 28);
        r.flowLabel = (int) (sfh >>> 8 & 0xfffff);
        r.hopLimit = (int) (sfh & 0xff);
        r.scope = u8(b, off + 48) >>> 4;
        r.joinState = u8(b, off + 48) & 0xf;
        r.proxyJoin = (u8(b, off + 49) & 0x80) != 0;
        return r;
    }

    public MCMemberRecord copy() {
        return fromWire(toWire(), 0);
    }

    @Override
    public String toString() {
        return String.format("MCMemberRecord[mgid %s port_gid %s mlid 0x%04x qkey 0x%08x pkey 0x%04x mtu %d rate %d"
                + " sl %d scope %d join_state 0x%x]", mgid, portGid, mlid, qkey, pkey, mtu, rate, sl, scope, joinState);
    }
}
