package org.jrdma.ib.mad.sm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.NodeRecord;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaException;

/**
 * The subnet administrator of an SM (OpenSM's {@code osm_sa_*}): class SubnAdm (0x03) version 2 on the
 * SM port's QP1, answering from what the last sweep found. NodeRecord (Get, GetTable), PathRecord (Get,
 * GetTable; one path per port pair: LMC 0, one switchless hop), MCMemberRecord (Set = join, creating the
 * group as OpenSM does, Delete = leave, Get/GetTable: {@link McMemberRecords}). GetTable answers go out with RMPP (one segment or
 * many); errors carry OpenSM's status codes. Handlers run on the MAD thread; the group table is only
 * touched there.
 */
public final class SubnetAdministrator implements MadHandler, AutoCloseable {
    /** OpenSM's default subnet timeout, which it puts in PathRecord PacketLifeTime. */
    static final int PKT_LIFE = 0x12;
    /** {@code struct ib_sa_mad}: SM_Key, AttributeOffset, ComponentMask, then the data. */
    static final int SM_KEY = 36;
    static final int ATTR_OFFSET = 44;
    static final int COMP_MASK = 48;
    static final int DATA = 56;

    private final SubnetManager sm;
    private final MadLayer layer;
    private final IbDevice device;
    private final int port;
    /** The MCMemberRecord side (groups, join, leave); only touched under {@code this}. */
    private final McMemberRecords mcmr;
    private MadAgent agent;
    /**
     * GetTable answers go by RMPP and stay until the requester ACKs them (1 s, 3 retries: 4 s if it never does).
     * At most this many per requester (its LID and QPN) and {@link #MAX_RMPP_OUTSTANDING} in all are kept; past
     * that a GetTable is answered with MAD status BUSY (one MAD, nothing kept; the requester retries later),
     * counted as {@code sa_busy}. A node flooding GetTables from one QP fills only its own share.
     */
    static final int MAX_RMPP_PER_REQUESTER = 16;
    static final int MAX_RMPP_OUTSTANDING = 1024;
    /** Outstanding RMPP answers by requester ({@code slid << 24 | qpn}); only touched under {@code rmppLock}. */
    private final Map<Long, Integer> rmppOutstanding = new java.util.HashMap<>();
    private int rmppTotal;
    private final Object rmppLock = new Object();

    SubnetAdministrator(SubnetManager sm, MadLayer layer, IbDevice device, int port) {
        this.sm = sm;
        this.layer = layer;
        this.device = device;
        this.port = port;
        this.mcmr = new McMemberRecords(sm, sm::mcastChanged);
    }

    void open() {
        agent = layer.registerAgent(device, port, QpType.GSI, new MadRegistration(Mad.CLASS_SUBN_ADM, 2,
                Mad.METHOD_GET, Mad.METHOD_SET, Mad.METHOD_GET_TABLE, Mad.METHOD_DELETE), this);
    }

    /** The groups now (copies), for diagnostics and tests. */
    public synchronized List<MCMemberRecord> groups() {
        return mcmr.groups();
    }

    /** The members of a group (port GID to join state), or an empty map. */
    public synchronized Map<Gid, Integer> members(Gid mgid) {
        return mcmr.members(mgid);
    }

    /** The sweep found only these port GUIDs: the others' memberships go (OpenSM's drop manager). */
    synchronized boolean portsGone(java.util.Set<Long> present) {
        return mcmr.dropAbsent(present);
    }

    /** Every group's MLID with the GUIDs of the ports that receive it (full and non-members), for the SM. */
    synchronized Map<Integer, java.util.Set<Long>> forwarding() {
        return mcmr.forwarding();
    }

    /** An answer: a status, and the records (each padded to {@code recSize} rounded up to 8). */
    record Answer(int status, int recSize, List<byte[]> records) {
        static Answer error(int status) {
            return new Answer(status, 0, List.of());
        }
    }

    @Override
    public void recv(MadAgent a, MadRecv recv) {
        Mad req = recv.mad();
        layer.count(device, port, "sa_requests");
        Answer ans;
        try {
            synchronized (this) {
                ans = answer(req);
            }
        } catch (RuntimeException e) {
            SubnetManager.LOG.log(System.Logger.Level.DEBUG, "SA: " + req + ": " + e);
            ans = Answer.error(SaException.ERR_REQ_INVALID);
        }
        if (ans.status() == 0 && req.method() != Mad.METHOD_GET_TABLE) {
            // C15-0.1.30: a Get (or Set/Delete) answers exactly one record
            if (ans.records().isEmpty()) {
                ans = Answer.error(SaException.ERR_NO_RECORDS);
            } else if (ans.records().size() > 1) {
                ans = Answer.error(SaException.ERR_TOO_MANY_RECORDS);
            }
        }
        if (ans.status() != 0 && ans.status() != Mad.STATUS_BUSY) {
            layer.count(device, port, "sa_errors");
        }
        Long requester = null;
        if (req.method() == Mad.METHOD_GET_TABLE && ans.status() == 0) {
            requester = (long) recv.slid() << 24 | recv.srcQp();
            if (!takeRmppShare(requester)) {
                requester = null;
                layer.count(device, port, "sa_busy");
                ans = Answer.error(Mad.STATUS_BUSY);
            }
        }
        int method = req.method() == Mad.METHOD_SET ? Mad.METHOD_GET_RESP : req.method() | Mad.METHOD_RESP;
        boolean table = requester != null; // a GetTable answered with records, by RMPP, within its share
        int off = (ans.recSize() + 7) / 8 * 8;
        int dataLen = table ? off * ans.records().size() : Math.max(0, Math.min(200, ans.recSize()));
        byte[] bytes = new byte[Math.max(Mad.SIZE, DATA + dataLen)];
        System.arraycopy(req.bytes(), 0, bytes, 0, DATA);
        Mad resp = new Mad(bytes).method(method).status(ans.status());
        for (int i = 24; i < 36; i++) {
            resp.u8(i, 0); // RMPP header: the sender fills it per segment
        }
        resp.u64(SM_KEY, 0); // C15-0.1.5: SM_Key 0 in every answer
        resp.u16(ATTR_OFFSET, ans.records().isEmpty() ? 0 : off / 8);
        for (int i = 0; i < ans.records().size() && (table || i == 0); i++) {
            byte[] r = ans.records().get(i);
            System.arraycopy(r, 0, bytes, DATA + i * off, Math.min(r.length, bytes.length - DATA - i * off));
        }
        MadSend send = new MadSend(resp).ah(a.ahAttrFromWc(recv)).remoteQpn(recv.srcQp())
                .remoteQkey(MadService.QP1_QKEY).pkeyIndex(recv.pkeyIndex());
        if (table) {
            send.rmpp(dataLen).context(requester);
        }
        try {
            a.send(send);
        } catch (VerbsException e) {
            SubnetManager.LOG.log(System.Logger.Level.DEBUG, "SA could not answer " + req + ": " + e.getMessage());
            sendDone(a, send, WcStatus.GENERAL_ERR);
        }
    }

    /** One more RMPP answer for {@code requester}, if its share and the total allow it. */
    private boolean takeRmppShare(long requester) {
        synchronized (rmppLock) {
            int mine = rmppOutstanding.getOrDefault(requester, 0);
            if (mine >= MAX_RMPP_PER_REQUESTER || rmppTotal >= MAX_RMPP_OUTSTANDING) {
                return false;
            }
            rmppOutstanding.put(requester, mine + 1);
            rmppTotal++;
            return true;
        }
    }

    /** An RMPP answer ended (ACKed, timed out, aborted or flushed): its requester's share is free again. */
    @Override
    public void sendDone(MadAgent a, MadSend send, WcStatus status) {
        if (!(send.context() instanceof Long requester)) {
            return;
        }
        synchronized (rmppLock) {
            Integer mine = rmppOutstanding.get(requester);
            if (mine != null) {
                rmppTotal--;
                if (mine <= 1) {
                    rmppOutstanding.remove(requester);
                } else {
                    rmppOutstanding.put(requester, mine - 1);
                }
            }
        }
    }

    /** Outstanding RMPP answers, for tests and diagnostics. */
    int rmppOutstanding() {
        synchronized (rmppLock) {
            return rmppTotal;
        }
    }

    private Answer answer(Mad req) {
        long mask = req.u64(COMP_MASK);
        byte[] data = java.util.Arrays.copyOfRange(req.bytes(), DATA, Mad.SIZE);
        int m = req.method();
        switch (req.attrId()) {
            case NodeRecord.ATTR_ID -> {
                if (m != Mad.METHOD_GET && m != Mad.METHOD_GET_TABLE) {
                    return Answer.error(Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB);
                }
                return nodeRecords(data, mask);
            }
            case PathRecord.ATTR_ID -> {
                if (m != Mad.METHOD_GET && m != Mad.METHOD_GET_TABLE) {
                    return Answer.error(Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB);
                }
                return pathRecords(data, mask);
            }
            case MCMemberRecord.ATTR_ID -> {
                return switch (m) {
                    case Mad.METHOD_SET -> mcmr.join(data, mask);
                    case Mad.METHOD_DELETE -> mcmr.leave(data, mask);
                    default -> mcmr.records(data, mask);
                };
            }
            default -> {
                return Answer.error(Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB);
            }
        }
    }

    // ------------------------------------------------------------------ NodeRecord

    /** NodeRecord component mask bit -> (offset, length) in the record. */
    private static final int[][] NR_FIELDS = {{0, 2}, {2, 2}, {4, 1}, {5, 1}, {6, 1}, {7, 1}, {8, 8}, {16, 8},
        {24, 8}, {32, 2}, {34, 2}, {36, 4}, {40, 1}, {41, 3}, {44, 64}};

    static byte[] nodeRecord(SubnetManager.PortRecord p) {
        byte[] r = new byte[NodeRecord.SIZE];
        r[0] = (byte) (p.lid() >>> 8);
        r[1] = (byte) p.lid();
        System.arraycopy(p.nodeInfo(), 0, r, 4, 40);
        System.arraycopy(p.nodeDescription(), 0, r, 44, 64);
        return r;
    }

    private Answer nodeRecords(byte[] q, long mask) {
        List<byte[]> out = new ArrayList<>();
        for (SubnetManager.PortRecord p : sm.ports()) {
            byte[] r = nodeRecord(p);
            if (matches(r, q, mask, NR_FIELDS)) {
                out.add(r);
            }
        }
        return new Answer(0, NodeRecord.SIZE, out);
    }

    static boolean matches(byte[] r, byte[] q, long mask, int[][] fields) {
        for (int bit = 0; bit < fields.length; bit++) {
            if ((mask & 1L << bit) != 0 && fields[bit] != null) {
                int o = fields[bit][0];
                if (!java.util.Arrays.equals(r, o, o + fields[bit][1], q, o, o + fields[bit][1])) {
                    return false;
                }
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ PathRecord

    /** {@code enum ib_rate} to Gb/s (x10), for selector comparisons. */
    static int rateTenthsGbps(int rate) {
        return switch (rate) {
            case 2 -> 25; case 3 -> 100; case 4 -> 300; case 5 -> 50; case 6 -> 200; case 7 -> 400; case 8 -> 600;
            case 9 -> 800; case 10 -> 1200; case 11 -> 140; case 12 -> 560; case 13 -> 1120; case 14 -> 1680;
            case 15 -> 250; case 16 -> 1000; case 17 -> 2000; case 18 -> 3000; case 19 -> 280; case 20 -> 500;
            case 21 -> 4000; case 22 -> 6000; default -> 0;
        };
    }

    /** The {@code enum ib_rate} of a port from its PortInfo (active width and speed). */
    static int portRate(byte[] pi) {
        int lanes = switch (pi[31] & 0xff) { case 1 -> 1; case 2 -> 4; case 4 -> 8; case 8 -> 12; case 16 -> 2; default -> 1; };
        int ext = (pi[62] & 0xff) >>> 4;
        int lane = ext == 1 ? 140 : ext == 2 ? 250 : ext == 4 ? 500
                : switch ((pi[35] & 0xff) >>> 4) { case 2 -> 50; case 4 -> 100; default -> 25; };
        int total = lanes * lane;
        int best = 2;
        for (int r = 2; r <= 22; r++) {
            if (rateTenthsGbps(r) == total) {
                return r;
            }
            if (rateTenthsGbps(r) <= total && rateTenthsGbps(r) > rateTenthsGbps(best)) {
                best = r;
            }
        }
        return best;
    }

    static int portMtu(byte[] pi) {
        return Math.min((pi[36] & 0xff) >>> 4, pi[41] & 0xf);
    }

    static Gid portGid(SubnetManager.PortRecord p) {
        long prefix = 0;
        for (int i = 8; i < 16; i++) {
            prefix = prefix << 8 | p.portInfo()[i] & 0xff;
        }
        return Gid.of(prefix, p.portGuid());
    }

    private SubnetManager.PortRecord byGid(Gid g) {
        return byGid(sm, g);
    }

    static SubnetManager.PortRecord byGid(SubnetManager sm, Gid g) {
        for (SubnetManager.PortRecord p : sm.ports()) {
            if (portGid(p).equals(g)) {
                return p;
            }
        }
        return null;
    }

    private SubnetManager.PortRecord byLid(int lid) {
        for (SubnetManager.PortRecord p : sm.ports()) {
            if (p.lid() == lid) {
                return p;
            }
        }
        return null;
    }

    /**
     * A value under a selector: the path's value {@code have} (ordered by {@code order}) turned into what
     * the requester asked for, or -1 if it cannot be (OpenSM's {@code pr_rcv_get_path_parms}).
     */
    static int select(int selector, int want, int have, java.util.function.IntUnaryOperator order,
            int[] values) {
        switch (selector) {
            case PathRecord.SELECTOR_GT:
                return order.applyAsInt(have) > order.applyAsInt(want) ? have : -1;
            case PathRecord.SELECTOR_LT: {
                int best = -1;
                for (int v : values) {
                    if (order.applyAsInt(v) < order.applyAsInt(want) && order.applyAsInt(v) <= order.applyAsInt(have)
                            && (best < 0 || order.applyAsInt(v) > order.applyAsInt(best))) {
                        best = v;
                    }
                }
                return best;
            }
            case PathRecord.SELECTOR_EQ:
                return order.applyAsInt(have) >= order.applyAsInt(want) ? want : -1;
            default:
                return have;
        }
    }

    static final int[] MTUS = {1, 2, 3, 4, 5};
    static final int[] RATES = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};

    private Answer pathRecords(byte[] q, long mask) {
        PathRecord want = PathRecord.fromWire(q, 0);
        if ((mask & PathRecord.SERVICE_ID) != 0 && (mask & PathRecord.SERVICE_ID) != PathRecord.SERVICE_ID) {
            return Answer.error(SaException.ERR_REQ_INSUFFICIENT_COMPONENTS);
        }
        if ((mask & PathRecord.MTU_SELECTOR) != 0 && (mask & PathRecord.MTU) != 0
                && (want.mtu < 1 || want.mtu > 5)) {
            return Answer.error(SaException.ERR_REQ_INVALID);
        }
        if ((mask & PathRecord.RATE_SELECTOR) != 0 && (mask & PathRecord.RATE) != 0
                && rateTenthsGbps(want.rate) == 0) {
            return Answer.error(SaException.ERR_REQ_INVALID);
        }
        List<SubnetManager.PortRecord> srcs = new ArrayList<>();
        List<SubnetManager.PortRecord> dsts = new ArrayList<>();
        int st = endpoints(mask, PathRecord.SGID, want.sgid, PathRecord.SLID, want.slid, srcs);
        if (st != 0) {
            return Answer.error(st);
        }
        st = endpoints(mask, PathRecord.DGID, want.dgid, PathRecord.DLID, want.dlid, dsts);
        if (st != 0) {
            return Answer.error(st);
        }
        List<byte[]> out = new ArrayList<>();
        for (SubnetManager.PortRecord s : srcs) {
            for (SubnetManager.PortRecord d : dsts) {
                PathRecord pr = path(s, d, want, mask);
                if (pr != null) {
                    out.add(pr.toWire());
                }
            }
        }
        return new Answer(0, PathRecord.SIZE, out);
    }

    private int endpoints(long mask, long gidBit, Gid gid, long lidBit, int lid, List<SubnetManager.PortRecord> out) {
        if ((mask & gidBit) != 0) {
            SubnetManager.PortRecord p = byGid(gid);
            if (p == null) {
                return SaException.ERR_REQ_INVALID_GID;
            }
            if ((mask & lidBit) != 0 && p.lid() != lid) {
                return SaException.ERR_NO_RECORDS;
            }
            out.add(p);
        } else if ((mask & lidBit) != 0) {
            SubnetManager.PortRecord p = byLid(lid);
            if (p == null) {
                return SaException.ERR_NO_RECORDS;
            }
            out.add(p);
        } else {
            out.addAll(sm.ports());
        }
        return 0;
    }

    /** The one path between two ports, as OpenSM's {@code pr_rcv_build_pr} fills it; null if none fits. */
    private static PathRecord path(SubnetManager.PortRecord s, SubnetManager.PortRecord d, PathRecord want, long mask) {
        PathRecord r = new PathRecord();
        r.sgid = portGid(s);
        r.dgid = portGid(d);
        r.slid = s.lid();
        r.dlid = d.lid();
        if ((mask & PathRecord.SERVICE_ID) != 0) {
            r.serviceId = want.serviceId;
        }
        if ((mask & PathRecord.FLOW_LABEL) != 0) {
            r.flowLabel = want.flowLabel;
        }
        if ((mask & PathRecord.TRAFFIC_CLASS) != 0) {
            r.trafficClass = want.trafficClass;
        }
        if ((mask & PathRecord.HOP_LIMIT) != 0) {
            r.hopLimit = want.hopLimit;
        }
        r.pkey = 0xffff;
        if ((mask & PathRecord.PKEY) != 0) {
            if ((want.pkey & 0x7fff) != 0x7fff) {
                return null; // every port's table holds the default P_Key only
            }
            r.pkey = want.pkey | 0x8000;
        }
        if ((mask & PathRecord.SL) != 0) {
            r.sl = want.sl & 0xf;
        }
        int mtu = Math.min(portMtu(s.portInfo()), portMtu(d.portInfo()));
        if ((mask & PathRecord.MTU) != 0 && (mask & PathRecord.MTU_SELECTOR) != 0) {
            mtu = select(want.mtuSelector, want.mtu, mtu, v -> v, MTUS);
            if (mtu < 1) {
                return null;
            }
        }
        int rate = portRate(s.portInfo());
        int drate = portRate(d.portInfo());
        if (rateTenthsGbps(drate) < rateTenthsGbps(rate)) {
            rate = drate;
        }
        if ((mask & PathRecord.RATE) != 0 && (mask & PathRecord.RATE_SELECTOR) != 0) {
            rate = select(want.rateSelector, want.rate, rate, SubnetAdministrator::rateTenthsGbps, RATES);
            if (rate < 0) {
                return null;
            }
        }
        r.mtuSelector = PathRecord.SELECTOR_EQ;
        r.mtu = mtu;
        r.rateSelector = PathRecord.SELECTOR_EQ;
        r.rate = rate;
        r.packetLifeTimeSelector = PathRecord.SELECTOR_EQ;
        // IBTA table 205: PacketLifeTime of a loopback path is zero
        r.packetLifeTime = s.portGuid() == d.portGuid() ? 0 : PKT_LIFE;
        r.reversible = true; // num_path 0: "only the reversible component"
        r.numbPath = 0;
        r.preference = 0;
        return r;
    }

    @Override
    public void close() {
        if (agent != null) {
            agent.close();
        }
    }
}
