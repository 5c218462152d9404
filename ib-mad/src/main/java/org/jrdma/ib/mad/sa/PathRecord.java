package org.jrdma.ib.mad.sa;

import static org.jrdma.ib.mad.sa.SaWire.*;

import org.jrdma.ib.core.Gid;

/**
 * {@code struct sa_path_rec} (IBTA 15.2.5.16, 64 bytes on the wire): the fields of Linux's record with
 * their names; selectors and values kept apart as Linux keeps them. The component mask bits are Linux's
 * {@code IB_SA_PATH_REC_*}.
 */
public final class PathRecord {
    public static final int ATTR_ID = 0x0035;
    public static final int SIZE = 64;
    public static final long SERVICE_ID = 3L; // bits 0 and 1
    public static final long DGID = 1L << 2;
    public static final long SGID = 1L << 3;
    public static final long DLID = 1L << 4;
    public static final long SLID = 1L << 5;
    public static final long RAW_TRAFFIC = 1L << 6;
    public static final long FLOW_LABEL = 1L << 8;
    public static final long HOP_LIMIT = 1L << 9;
    public static final long TRAFFIC_CLASS = 1L << 10;
    public static final long REVERSIBLE = 1L << 11;
    public static final long NUMB_PATH = 1L << 12;
    public static final long PKEY = 1L << 13;
    public static final long QOS_CLASS = 1L << 14;
    public static final long SL = 1L << 15;
    public static final long MTU_SELECTOR = 1L << 16;
    public static final long MTU = 1L << 17;
    public static final long RATE_SELECTOR = 1L << 18;
    public static final long RATE = 1L << 19;
    public static final long PACKET_LIFE_TIME_SELECTOR = 1L << 20;
    public static final long PACKET_LIFE_TIME = 1L << 21;
    public static final long PREFERENCE = 1L << 22;

    /** Selectors ({@code IB_SA_GT}, {@code IB_SA_LT}, {@code IB_SA_EQ}, {@code IB_SA_BEST}). */
    public static final int SELECTOR_GT = 0;
    public static final int SELECTOR_LT = 1;
    public static final int SELECTOR_EQ = 2;
    public static final int SELECTOR_BEST = 3;

    public long serviceId;
    public Gid dgid = Gid.ZERO;
    public Gid sgid = Gid.ZERO;
    public int dlid;
    public int slid;
    public boolean rawTraffic;
    public int flowLabel;
    public int hopLimit;
    public int trafficClass;
    public boolean reversible;
    public int numbPath;
    public int pkey;
    public int qosClass;
    public int sl;
    public int mtuSelector;
    /** {@code enum ib_mtu}: 1 = 256 ... 5 = 4096. */
    public int mtu;
    public int rateSelector;
    /** {@code enum ib_rate}: 2 = 2.5 Gb/s, 3 = 10, 7 = 40, 16 = 100, ... */
    public int rate;
    public int packetLifeTimeSelector;
    public int packetLifeTime;
    public int preference;

    /** {@code sa_path_rec_pack}. */
    public byte[] toWire() {
        byte[] b = new byte[SIZE];
        u64(b, 0, serviceId);
        gid(b, 8, dgid);
        gid(b, 24, sgid);
        u16(b, 40, dlid);
        u16(b, 42, slid);
        u32(b, 44, (rawTraffic ? 1L << 31 : 0) | (flowLabel & 0xfffffL) << 8 | hopLimit & 0xff);
        u8(b, 48, trafficClass);
        u8(b, 49, (reversible ? 0x80 : 0) | numbPath & 0x7f);
        u16(b, 50, pkey);
        u16(b, 52, (qosClass & 0xfff) << 4 | sl & 0xf);
        u8(b, 54, (mtuSelector & 3) << 6 | mtu & 0x3f);
        u8(b, 55, (rateSelector & 3) << 6 | rate & 0x3f);
        u8(b, 56, (packetLifeTimeSelector & 3) << 6 | packetLifeTime & 0x3f);
        u8(b, 57, preference);
        return b;
    }

    /** {@code sa_path_rec_unpack} of 64 bytes at {@code off}. */
    public static PathRecord fromWire(byte[] b, int off) {
        PathRecord r = new PathRecord();
        r.serviceId = u64(b, off);
        r.dgid = gid(b, off + 8);
        r.sgid = gid(b, off + 24);
        r.dlid = u16(b, off + 40);
        r.slid = u16(b, off + 42);
        long hf = u32(b, off + 44);
        r.rawTraffic = (hf >>> 31) != 0;
        r.flowLabel = (int) (hf >>> 8 & 0xfffff);
        r.hopLimit = (int) (hf & 0xff);
        r.trafficClass = u8(b, off + 48);
        r.reversible = (u8(b, off + 49) & 0x80) != 0;
        r.numbPath = u8(b, off + 49) & 0x7f;
        r.pkey = u16(b, off + 50);
        r.qosClass = u16(b, off + 52) >>> 4;
        r.sl = u16(b, off + 52) & 0xf;
        r.mtuSelector = u8(b, off + 54) >>> 6;
        r.mtu = u8(b, off + 54) & 0x3f;
        r.rateSelector = u8(b, off + 55) >>> 6;
        r.rate = u8(b, off + 55) & 0x3f;
        r.packetLifeTimeSelector = u8(b, off + 56) >>> 6;
        r.packetLifeTime = u8(b, off + 56) & 0x3f;
        r.preference = u8(b, off + 57);
        return r;
    }

    @Override
    public String toString() {
        return String.format("PathRecord[sgid %s slid %d -> dgid %s dlid %d, pkey 0x%04x sl %d mtu %d rate %d"
                + " pkt_life %d%s numb_path %d]", sgid, slid, dgid, dlid, pkey, sl, mtu, rate, packetLifeTime,
                reversible ? " reversible" : "", numbPath);
    }
}
