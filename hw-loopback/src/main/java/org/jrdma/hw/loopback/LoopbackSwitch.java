package org.jrdma.hw.loopback;

import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.sw.rdmavt.MemError;
import org.jrdma.sw.rdmavt.RecvWqe;
import org.jrdma.sw.rdmavt.RvtQp;
import org.jrdma.sw.rdmavt.Segments;
import org.jrdma.sw.rdmavt.SendWqe;

/**
 * The switch of a {@link LoopbackFabric}: switch port {@code n} is the fabric's link {@code n} (the CA port
 * cabled to it), port 0 its management port. Its SMA, reached by a directed-route SMP of one hop to the QP0
 * DLID {@link LoopbackFabric#LINK_LID_BASE} (link 0 = switch port 0), answers what an SM asks a switch for
 * multicast, as a switch's firmware does: NodeDescription, NodeInfo (NodeType 2), SwitchInfo, and MulticastForwardingTable
 * Get/Set (attribute 0x001B; AttributeModifier = position &lt;&lt; 28 | block; a block is 32 MLIDs from
 * {@code 0xC000 + 32 * block}, each a 16-bit mask of ports {@code 16 * position .. 16 * position + 15}).
 * Other attributes: status 0x000C. The fabric forwards a multicast DLID by this table once an SM has written
 * it ({@link #programmed()}).
 */
public final class LoopbackSwitch {
    public static final int ATTR_NODE_DESC = 0x0010;
    public static final int ATTR_NODE_INFO = 0x0011;
    /** What its NodeDescription says. */
    public static final String NODE_DESC = "jrdma loopback switch";
    public static final int ATTR_SWITCH_INFO = 0x0012;
    public static final int ATTR_MFT = 0x001b;
    /** Ports 1..NUM_PORTS (links beyond it are not forwarded to); with port 0, four MFT positions. */
    public static final int NUM_PORTS = 63;
    /** MulticastFDBCap: MLIDs 0xC000..0xC3FF (32 blocks). */
    public static final int MFT_CAP = 1024;
    static final int MLID_BASE = 0xc000;
    static final int POSITIONS = (NUM_PORTS + 1 + 15) / 16;
    /** SMP layout ({@code struct ib_smp}). */
    private static final int STATUS = 4;
    private static final int HOP_PTR = 6;
    private static final int DATA = 64;
    private static final int RETURN_PATH = 192;
    private static final int SMP_SIZE = 256;
    private static final int GRH_BYTES = org.jrdma.ib.core.WcFlags.GRH_BYTES;
    /** One thread for the SMAs of every fabric's switch, gone when idle: the SMP "on the wire". */
    private static final ThreadPoolExecutor WIRE = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "loopback-switch");
                t.setDaemon(true);
                return t;
            });

    private final long guid;
    /** MFT[mlid - 0xC000][position]: 16-bit port masks. Guarded by {@code this}. */
    private final char[][] mft = new char[MFT_CAP][POSITIONS];
    private volatile boolean programmed;
    private final AtomicLong smps = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    LoopbackSwitch(long guid) {
        this.guid = guid;
    }

    public long guid() {
        return guid;
    }

    /** Whether an SM has written the MFT (SubnSet(MulticastForwardingTable)) at least once. */
    public boolean programmed() {
        return programmed;
    }

    /** SMPs the SMA answered, and SMPs it dropped (no receive posted, bad buffer). */
    public long smps() {
        return smps.get();
    }

    public long dropped() {
        return dropped.get();
    }

    /** The switch ports (1..) whose MFT bit is set for {@code mlid}, ascending; port 0 left out. */
    public synchronized int[] ports(int mlid) {
        int i = mlid - MLID_BASE;
        if (i < 0 || i >= MFT_CAP) {
            return new int[0];
        }
        return java.util.stream.IntStream.rangeClosed(1, NUM_PORTS)
                .filter(p -> (mft[i][p / 16] >>> (p % 16) & 1) != 0).toArray();
    }

    /**
     * A QP0 send to the switch's port 0 ({@code src} sends it over link {@code inPort}): the SMP is read from the
     * sender's memory now; the answer comes back to {@code src}'s receive queue on the switch's thread.
     */
    void receive(RvtQp src, SendWqe w, int inPort) {
        byte[] req = new byte[SMP_SIZE];
        Segments from = new Segments(32);
        if (w.isInline()) {
            from.wrap(ByteBuffer.wrap(w.inlineData()), w.inlineLength());
        } else if (from.resolveLocal(src.dev.keys, src.pd, w, 0) != MemError.NONE) {
            dropped.incrementAndGet();
            return;
        }
        if (from.total() < SMP_SIZE) {
            dropped.incrementAndGet();
            return;
        }
        Segments to = new Segments(1);
        to.wrap(ByteBuffer.wrap(req), SMP_SIZE);
        Segments.copy(from, to, SMP_SIZE);
        WIRE.execute(() -> reply(src, answer(req, inPort)));
    }

    /** The SMA: the response SMP to a request that came in on {@code inPort}, or null (not a request). */
    byte[] answer(byte[] req, int inPort) {
        ByteBuffer m = ByteBuffer.wrap(req);
        int method = req[3] & 0xff;
        if (req[1] != (byte) 0x81 || method != 0x01 && method != 0x02 || (m.getShort(STATUS) & 0x8000) != 0) {
            return null; // a switch's SMA answers directed-route SubnGet/SubnSet only
        }
        smps.incrementAndGet();
        int attr = m.getShort(16) & 0xffff;
        long mod = m.getInt(20) & 0xffffffffL;
        int status = switch (attr) {
            case ATTR_NODE_DESC -> method == 0x01 ? nodeDesc(m) : 0x000c;
            case ATTR_NODE_INFO -> method == 0x01 ? nodeInfo(m, inPort) : 0x000c;
            case ATTR_SWITCH_INFO -> method == 0x01 ? switchInfo(m) : 0x000c;
            case ATTR_MFT -> mft(m, method == 0x02, mod);
            default -> 0x000c;
        };
        req[3] = (byte) 0x81; // GetResp
        m.putShort(STATUS, (short) (0x8000 | status)); // D bit: returning
        req[HOP_PTR] = 1; // as the responder's smi.c leaves it after the return path's first step
        req[RETURN_PATH + 1] = (byte) inPort;
        return req;
    }

    private static int nodeDesc(ByteBuffer m) {
        java.util.Arrays.fill(m.array(), DATA, DATA + 64, (byte) 0);
        byte[] d = NODE_DESC.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(d, 0, m.array(), DATA, d.length);
        return 0;
    }

    private int nodeInfo(ByteBuffer m, int inPort) {
        java.util.Arrays.fill(m.array(), DATA, DATA + 64, (byte) 0);
        m.put(DATA, (byte) 1).put(DATA + 1, (byte) 1).put(DATA + 2, (byte) 2).put(DATA + 3, (byte) NUM_PORTS);
        m.putLong(DATA + 4, guid).putLong(DATA + 12, guid).putLong(DATA + 20, guid);
        m.putShort(DATA + 28, (short) 1).putShort(DATA + 30, (short) 0xb924).putInt(DATA + 32, 1);
        m.putInt(DATA + 36, inPort << 24 | 0x6a7264); // LocalPortNum: the port the SMP came in on; VendorID
        return 0;
    }

    private synchronized int switchInfo(ByteBuffer m) {
        java.util.Arrays.fill(m.array(), DATA, DATA + 64, (byte) 0);
        int top = 0;
        for (int i = MFT_CAP - 1; i >= 0 && top == 0; i--) {
            for (char c : mft[i]) {
                if (c != 0) {
                    top = MLID_BASE + i;
                }
            }
        }
        m.putShort(DATA + 4, (short) MFT_CAP).put(DATA + 8, (byte) 0xff).put(DATA + 9, (byte) 0xff)
                .put(DATA + 10, (byte) 0xff).putShort(DATA + 12, (short) 1).putShort(DATA + 18, (short) top);
        return 0;
    }

    /** MulticastForwardingTable Get/Set of one block at one position; past the table: 0x001C. */
    private synchronized int mft(ByteBuffer m, boolean set, long mod) {
        int position = (int) (mod >>> 28);
        int block = (int) (mod & 0x1ff);
        if (position >= POSITIONS || block >= MFT_CAP / 32 || (mod & 0x0ffffe00L) != 0) {
            return 0x001c;
        }
        for (int e = 0; e < 32; e++) {
            if (set) {
                mft[block * 32 + e][position] = m.getChar(DATA + 2 * e);
            }
            m.putChar(DATA + 2 * e, mft[block * 32 + e][position]);
        }
        if (set) {
            programmed = true;
        }
        return 0;
    }

    /** The answer into {@code qp}'s receive queue, as if it came back over the link (SLID: link 0's). */
    private void reply(RvtQp qp, byte[] smp) {
        if (smp == null || qp.state() != QpState.RTS && qp.state() != QpState.RTR) {
            return;
        }
        RecvWqe r = new RecvWqe(32);
        if (!qp.takeRecv(r)) {
            dropped.incrementAndGet();
            return;
        }
        WorkCompletion wc = new WorkCompletion().wrId(r.wrId()).qp(qp.ctx.qp()).qpNum(qp.qpn).portNum(qp.port())
                .opcode(WcOpcode.RECV);
        Segments to = new Segments(32);
        if (to.resolveRecv(qp.dev.keys, qp.pd, r) != MemError.NONE || to.total() < GRH_BYTES + SMP_SIZE) {
            dropped.incrementAndGet();
            qp.rcq.post(wc.status(WcStatus.LOC_LEN_ERR), false);
            return;
        }
        byte[] wire = new byte[GRH_BYTES + SMP_SIZE]; // no GRH: its room stays zero
        System.arraycopy(smp, 0, wire, GRH_BYTES, SMP_SIZE);
        Segments from = new Segments(1);
        from.wrap(ByteBuffer.wrap(wire), wire.length);
        Segments.copy(from, to, wire.length);
        qp.rcq.post(wc.status(WcStatus.SUCCESS).byteLen(wire.length).srcQp(0).pkeyIndex(0)
                .slid(LoopbackFabric.LINK_LID_BASE).sl(0).wcFlags(0), false);
    }
}
