package org.jrdma.itest;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToLongFunction;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;

/**
 * What {@link TrafficClient#add} builds on a two-port device: a PD, two RC QPs connected port 1
 * (QP a) to port 2 (QP b), and traffic from a to b, or both ways. Between two devices (two rxe
 * devices, one port each) QP a is on the first, QP b on the second, each with its own PD, and they
 * are addressed by GID (RoCE: a GRH with the peer's GID 0) instead of by LID.
 * Each direction is a {@link Lane}
 * with its own CQ (the sender's send CQ and the receiver's receive CQ; two CQs when the ends are on
 * two devices), buffers and thread, which keeps
 * {@link #SEND_SLOTS} SENDs and {@link #WRITE_SLOTS} RDMA WRITEs in flight with {@link #RECV_SLOTS}
 * receives posted, and polls its CQ. Both ways, the two QPs of the device are posted to (and, in
 * hw-loopback, executed) by two threads at once.
 * <p>Every work request has a unique wr_id and is remembered in its lane's {@code outstanding} map
 * until its completion, so a lost, duplicated or unknown completion is noticed, not just counted.
 * Data is checked byte for byte: a received SEND carries its sequence number and length and must
 * be the next SEND of that lane (RC delivers in order); an RDMA WRITE's target slot is scribbled
 * over before the post and must hold the source pattern when the WRITE completes.
 * <p>Threads: a lane thread owns its lane until it ends; {@link #close} (the client's remove) tells
 * both to stop, moves both QPs to ERR, joins them, and only then polls itself. Counters are atomic
 * so that the test can read them at any time.
 */
final class TrafficSession {
    static final int SEND_SLOTS = 8;
    static final int WRITE_SLOTS = 8;
    /** At least twice the SENDs in flight: a receive is reposted before its SEND's slot is free. */
    static final int RECV_SLOTS = 16;
    static final int SLOT_BYTES = 1024;
    /** A SEND carries seq (8 bytes) and length (4 bytes) first. */
    static final int HEADER = 12;
    static final int CQE = 256;
    static final long JOIN_MS = 5000;
    static final long DRAIN_MS = 5000;

    enum Kind {
        SEND, WRITE, RECV
    }

    record Pending(Kind kind, int slot, int length) {
    }

    /** QP a's device, and QP b's (the same one on a two-port device). */
    final IbDevice device;
    final String deviceName;
    final IbDevice peerDevice;
    private final int port;
    private final int peerPort;
    private final IbClient owner;
    /** Remove does not stop the traffic nor clean up: ib-core has to (a misbehaving ULP). */
    private final boolean lazy;
    /** Traffic from port 2 to port 1 as well, on its own thread. */
    private final boolean bothWays;
    /**
     * Start each lane with a SEND before any receive (RNR NAK and retry): hw-loopback runs the retry on
     * its engine thread, which the tests want to see running. rxe runs everything on its engine anyway.
     */
    boolean rnrFirst = true;
    /**
     * Local ACK timeout (4.096 us * 2^timeout) with retry_cnt 7: 14 (67 ms, 0.5 s in all) suits hw-loopback;
     * RoCE through the kernel on a busy 2-core host needs more (a starved event loop delays every packet).
     */
    int ackTimeout = 14;

    private ProtectionDomain pd;
    /** QP b's PD: {@link #pd} when both ends are on one device. */
    private ProtectionDomain peerPd;
    private QueuePair a;
    private QueuePair b;
    /** Port 1 to port 2 (a to b), and back if {@link #bothWays}. */
    final List<Lane> lanes = new ArrayList<>();
    /** One way only: the CQ of the unused direction (it must stay empty). */
    private Lane idle;

    /** Completion handler calls after the drain finished, and after close() returned. */
    final AtomicLong afterDrain = new AtomicLong();
    final AtomicLong afterClose = new AtomicLong();
    final List<String> problems = Collections.synchronizedList(new ArrayList<>());

    private volatile boolean stop;
    private volatile boolean drained;
    private volatile boolean closed;

    // what close() saw
    volatile boolean closeRan;
    /** The device whose remove closed the session. */
    volatile String closedBy;
    volatile String closeThread;
    volatile boolean registeredAtClose;
    volatile boolean threadsAliveAtClose;
    volatile long postedAtClose;
    volatile int outstandingAtClose;
    volatile boolean threadsJoined;
    volatile boolean drainComplete;
    volatile long drainMillis;
    volatile long completedAtClose;

    /** Port 1 to port 2 of one device. */
    TrafficSession(IbDevice device, IbClient owner, boolean lazy, boolean bothWays) {
        this(device, 1, device, 2, owner, lazy, bothWays);
    }

    /** QP a on {@code device}/{@code port} to QP b on {@code peerDevice}/{@code peerPort}. */
    TrafficSession(IbDevice device, int port, IbDevice peerDevice, int peerPort, IbClient owner, boolean lazy,
            boolean bothWays) {
        this.device = device;
        this.deviceName = device.name();
        this.peerDevice = peerDevice;
        this.port = port;
        this.peerPort = peerPort;
        this.owner = owner;
        this.lazy = lazy;
        this.bothWays = bothWays;
    }

    // ---------------------------------------------------------------- set up (in add)

    /** Builds everything and starts the lane threads. Undoes what it built if a step fails. */
    void open() {
        try {
            pd = device.allocPd(owner);
            peerPd = peerDevice == device ? pd : peerDevice.allocPd(owner);
            Lane ab = new Lane("1to2", device, peerDevice);
            lanes.add(ab);
            // one way: b's send CQ and a's receive CQ stay empty; a second CQ keeps the set-up the same
            Lane ba = new Lane("2to1", peerDevice, device);
            if (bothWays) {
                lanes.add(ba);
            } else {
                idle = ba;
            }
            QpCap cap = new QpCap().maxSendWr(2 * (SEND_SLOTS + WRITE_SLOTS)).maxRecvWr(2 * RECV_SLOTS);
            a = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(ab.cq).recvCq(ba.rcq).cap(cap));
            b = peerPd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(ba.cq).recvCq(ab.rcq).cap(cap));
            connect(a, device, port, b, peerDevice, peerPort);
            connect(b, peerDevice, peerPort, a, device, port);
            ab.connect(a, b);
            if (bothWays) {
                ba.connect(b, a);
            }
        } catch (RuntimeException e) {
            destroyAll();
            throw e;
        }
        for (Lane l : lanes) {
            l.start();
        }
    }

    /** RESET to RTS; an Ethernet (RoCE) port has no LIDs: the address is the peer's GID 0, in a GRH. */
    private void connect(QueuePair qp, IbDevice dev, int port, QueuePair peer, IbDevice peerDev, int peerPort) {
        AhAttr av = new AhAttr().portNum(port);
        if (dev.linkLayer(port) == LinkLayer.ETHERNET) {
            av.grh(peerDev.queryGid(peerPort, 0), 0);
        } else {
            av.dlid(peerDev.queryPort(peerPort).lid());
        }
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(port).accessFlags(Access.REMOTE_WRITE));
        qp.modify(new QpAttr().state(QpState.RTR).av(av)
                .pathMtu(dev.queryPort(port).activeMtu()).destQpNum(peer.qpNum()).rqPsn(0)
                .maxDestRdAtomic(1).minRnrTimer(1));
        qp.modify(new QpAttr().state(QpState.RTS).timeout(ackTimeout).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1));
    }

    private void completionEvent(Lane lane) {
        if (closed) {
            afterClose.incrementAndGet();
        } else if (drained) {
            afterDrain.incrementAndGet();
        }
        Thread t = lane.thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private static byte pattern(long seq, int i) {
        return (byte) (seq * 31 + i * 7 + (seq >>> 8));
    }

    /** min..SLOT_BYTES, changing with every request. */
    private static int length(long seq, int min) {
        return min + (int) ((seq * 37) % (SLOT_BYTES - min + 1));
    }

    private void problem(String p) {
        if (problems.size() < 20) {
            problems.add(p);
        }
    }

    /**
     * One direction: the sender posts SENDs and RDMA WRITEs, the receiver receives; one CQ (two when
     * sender and receiver are on two devices) and one thread.
     */
    final class Lane {
        final String name;
        /** The sender's send CQ, on the sender's device. */
        final CompletionQueue cq;
        /** The receiver's receive CQ: {@link #cq} on one device, else one on the receiver's device. */
        final CompletionQueue rcq;
        private final IbDevice fromDev;
        private final IbDevice toDev;
        private QueuePair sender;
        private QueuePair receiver;
        private final ByteBuffer sendBuf = ByteBuffer.allocateDirect(SEND_SLOTS * SLOT_BYTES);
        private final ByteBuffer writeSrc = ByteBuffer.allocateDirect(WRITE_SLOTS * SLOT_BYTES);
        private final ByteBuffer recvBuf = ByteBuffer.allocateDirect(RECV_SLOTS * SLOT_BYTES);
        private final ByteBuffer writeDst = ByteBuffer.allocateDirect(WRITE_SLOTS * SLOT_BYTES);
        private MemoryRegion sendMr;
        private MemoryRegion writeSrcMr;
        private MemoryRegion recvMr;
        private MemoryRegion writeDstMr;
        volatile Thread thread;

        // owned by the lane thread until it ends, then by close()
        private final ArrayDeque<Integer> freeSend = new ArrayDeque<>();
        private final ArrayDeque<Integer> freeWrite = new ArrayDeque<>();
        private final ArrayDeque<Integer> freeRecv = new ArrayDeque<>();
        /** Sequence numbers of the SENDs posted, in order: what the receives must deliver. */
        private final ArrayDeque<Long> sendOrder = new ArrayDeque<>();
        private final WorkCompletion[] wc = new WorkCompletion[32];
        private final SendWr swr = new SendWr();
        private final Sge ssge = new Sge();
        private final RecvWr rwr = new RecvWr();
        private final Sge rsge = new Sge();
        private long nextSeq = 1;
        /** Set when a flush or an error completion shows that a QP is in ERR: posting is pointless. */
        private boolean qpFailed;

        /** Posted and not yet completed, by wr_id. */
        final Map<Long, Pending> outstanding = new ConcurrentHashMap<>();
        final AtomicLong posted = new AtomicLong();
        final AtomicLong sendOk = new AtomicLong();
        final AtomicLong writeOk = new AtomicLong();
        final AtomicLong recvOk = new AtomicLong();
        final AtomicLong flushedSends = new AtomicLong();
        final AtomicLong flushedRecvs = new AtomicLong();
        final AtomicLong otherErrors = new AtomicLong();
        /** Completions for a wr_id that was not outstanding (never posted, or completed twice). */
        final AtomicLong unknown = new AtomicLong();
        final AtomicLong mismatches = new AtomicLong();
        volatile String endReason;

        Lane(String name, IbDevice from, IbDevice to) {
            this.name = name;
            this.fromDev = from;
            this.toDev = to;
            this.cq = from.createCq(owner, new CqInitAttr().cqe(CQE).compHandler(c -> completionEvent(this)));
            CompletionQueue r = cq;
            if (to != from) {
                try {
                    r = to.createCq(owner, new CqInitAttr().cqe(CQE).compHandler(c -> completionEvent(this)));
                } catch (RuntimeException e) {
                    cq.destroy();
                    throw e;
                }
            }
            this.rcq = r;
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            swr.sgList(ssge);
            rwr.sgList(rsge);
            for (int i = 0; i < SEND_SLOTS; i++) {
                freeSend.add(i);
            }
            for (int i = 0; i < WRITE_SLOTS; i++) {
                freeWrite.add(i);
            }
            for (int i = 0; i < RECV_SLOTS; i++) {
                freeRecv.add(i);
            }
        }

        void connect(QueuePair from, QueuePair to) {
            this.sender = from;
            this.receiver = to;
            ProtectionDomain spd = fromDev == device ? pd : peerPd;
            ProtectionDomain rpd = toDev == device ? pd : peerPd;
            sendMr = spd.regMr(sendBuf, Access.LOCAL_WRITE);
            writeSrcMr = spd.regMr(writeSrc, Access.LOCAL_WRITE);
            recvMr = rpd.regMr(recvBuf, Access.LOCAL_WRITE);
            writeDstMr = rpd.regMr(writeDst, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        }

        void start() {
            Thread t = new Thread(this::run, "traffic-" + deviceName + "-" + name);
            t.setDaemon(true);
            thread = t;
            t.start();
        }

        private void run() {
            try {
                if (rnrFirst) {
                    // the first SEND before any receive: the responder answers RNR NAK and the retry waits on
                    // the device's engine thread, so that thread surely runs (idle QPs run on the posting thread)
                    postSend(freeSend.peek());
                    freeSend.poll();
                }
                while (true) {
                    if (stop) {
                        endReason = "stopped by remove";
                        return;
                    }
                    int done = poll();
                    if (qpFailed) {
                        // close() sets stop before it moves the QPs to ERR, so a flush it caused finds stop set
                        endReason = stop ? "stopped by remove" : "QP in ERR (flush or error completion)";
                        return;
                    }
                    int started = post();
                    if (done == 0 && started == 0 && !armed()) {
                        // nothing to do and no completion raced in: sleep until the handler wakes us
                        LockSupport.parkNanos(1_000_000);
                    }
                }
            } catch (VerbsException e) {
                endReason = "verb failed: " + e.getMessage();
            } catch (RuntimeException | Error e) {
                endReason = "crashed: " + e;
                problems.add(name + ": lane thread crashed: " + e);
                throw e;
            }
        }

        /** Posts into every free slot: receives first, so a SEND never waits for one. */
        private int post() {
            int n = 0;
            while (!freeRecv.isEmpty() && !stop) {
                postRecv(freeRecv.peek());
                freeRecv.poll();
                n++;
            }
            while ((!freeSend.isEmpty() || !freeWrite.isEmpty()) && !stop) {
                if (!freeSend.isEmpty()) {
                    postSend(freeSend.peek());
                    freeSend.poll();
                    n++;
                }
                if (!freeWrite.isEmpty()) {
                    postWrite(freeWrite.peek());
                    freeWrite.poll();
                    n++;
                }
            }
            return n;
        }

        private void postRecv(int slot) {
            long seq = nextSeq++;
            int base = slot * SLOT_BYTES;
            for (int i = 0; i < SLOT_BYTES; i++) {
                recvBuf.put(base + i, (byte) 0xee);
            }
            rsge.addr(recvMr.iova() + base).length(SLOT_BYTES).lkey(recvMr.lkey());
            rwr.wrId(seq);
            outstanding.put(seq, new Pending(Kind.RECV, slot, SLOT_BYTES));
            try {
                receiver.postRecv(rwr);
            } catch (RuntimeException e) {
                outstanding.remove(seq);
                throw e;
            }
            posted.incrementAndGet();
        }

        private void postSend(int slot) {
            long seq = nextSeq++;
            int len = length(seq, HEADER);
            int base = slot * SLOT_BYTES;
            sendBuf.putLong(base, seq);
            sendBuf.putInt(base + 8, len);
            for (int i = HEADER; i < len; i++) {
                sendBuf.put(base + i, pattern(seq, i));
            }
            ssge.addr(sendMr.iova() + base).length(len).lkey(sendMr.lkey());
            swr.wrId(seq).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).remote(0, 0);
            outstanding.put(seq, new Pending(Kind.SEND, slot, len));
            sendOrder.add(seq);
            try {
                sender.postSend(swr);
            } catch (RuntimeException e) {
                outstanding.remove(seq);
                sendOrder.removeLast();
                throw e;
            }
            posted.incrementAndGet();
        }

        private void postWrite(int slot) {
            long seq = nextSeq++;
            int len = length(seq, 1);
            int base = slot * SLOT_BYTES;
            for (int i = 0; i < len; i++) {
                byte p = pattern(seq, i);
                writeSrc.put(base + i, p);
                writeDst.put(base + i, (byte) ~p);
            }
            ssge.addr(writeSrcMr.iova() + base).length(len).lkey(writeSrcMr.lkey());
            swr.wrId(seq).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .remote(writeDstMr.iova() + base, writeDstMr.rkey());
            outstanding.put(seq, new Pending(Kind.WRITE, slot, len));
            try {
                sender.postSend(swr);
            } catch (RuntimeException e) {
                outstanding.remove(seq);
                throw e;
            }
            posted.incrementAndGet();
        }

        /** Polls one batch (of each CQ) and accounts for it; returns how many completions it got. */
        int poll() {
            int n = poll(cq);
            if (rcq != cq) {
                n += poll(rcq);
            }
            return n;
        }

        private int poll(CompletionQueue q) {
            int n = q.poll(wc);
            for (int i = 0; i < n; i++) {
                account(wc[i]);
            }
            return n;
        }

        /** Arms the CQ(s); false if a completion raced in (reported as missed), so do not sleep. */
        private boolean armed() {
            return !cq.reqNotify(CqNotify.NEXT_COMP, true) && (rcq == cq || !rcq.reqNotify(CqNotify.NEXT_COMP, true));
        }

        void armAll() {
            cq.reqNotify(CqNotify.NEXT_COMP, false);
            if (rcq != cq) {
                rcq.reqNotify(CqNotify.NEXT_COMP, false);
            }
        }

        /** Polls without accounting: how many completions are there (the unused direction has none). */
        int pollStray() {
            WorkCompletion[] one = {new WorkCompletion()};
            return cq.poll(one) + (rcq == cq ? 0 : rcq.poll(one));
        }

        void destroyCqs() {
            destroy(cq::destroy, name + " CQ");
            if (rcq != cq) {
                destroy(rcq::destroy, name + " receive CQ");
            }
        }

        private void account(WorkCompletion w) {
            Pending p = outstanding.remove(w.wrId());
            if (p == null) {
                unknown.incrementAndGet();
                problem(name + ": completion for a wr_id that is not outstanding: " + w);
                return;
            }
            QueuePair expectedQp = p.kind() == Kind.RECV ? receiver : sender;
            if (w.qp() != expectedQp) {
                mismatches.incrementAndGet();
                problem(name + ": completion on the wrong QP: " + w + " for " + p);
            }
            switch (w.status()) {
                case SUCCESS -> {
                    switch (p.kind()) {
                        case SEND -> {
                            check(w.opcode() == WcOpcode.SEND && w.byteLen() == p.length(), "SEND completion", w, p);
                            sendOk.incrementAndGet();
                            freeSend.add(p.slot());
                        }
                        case WRITE -> {
                            check(w.opcode() == WcOpcode.RDMA_WRITE && w.byteLen() == p.length(),
                                    "WRITE completion", w, p);
                            checkWritten(w.wrId(), p);
                            writeOk.incrementAndGet();
                            freeWrite.add(p.slot());
                        }
                        case RECV -> {
                            check(w.opcode() == WcOpcode.RECV, "RECV completion", w, p);
                            checkReceived(w, p);
                            recvOk.incrementAndGet();
                            freeRecv.add(p.slot());
                        }
                    }
                }
                case WR_FLUSH_ERR -> {
                    (p.kind() == Kind.RECV ? flushedRecvs : flushedSends).incrementAndGet();
                    qpFailed = true;
                }
                default -> {
                    otherErrors.incrementAndGet();
                    problem(name + ": error completion " + w + " for " + p);
                    qpFailed = true;
                }
            }
        }

        private void check(boolean ok, String what, WorkCompletion w, Pending p) {
            if (!ok) {
                mismatches.incrementAndGet();
                problem(name + ": " + what + " does not match: " + w + " for " + p);
            }
        }

        private void checkWritten(long seq, Pending p) {
            int base = p.slot() * SLOT_BYTES;
            for (int i = 0; i < p.length(); i++) {
                if (writeDst.get(base + i) != pattern(seq, i)) {
                    mismatches.incrementAndGet();
                    problem(name + ": RDMA WRITE " + seq + " (" + p.length() + " bytes): byte " + i
                            + " at the target is " + writeDst.get(base + i) + ", not " + pattern(seq, i));
                    return;
                }
            }
        }

        private void checkReceived(WorkCompletion w, Pending p) {
            int base = p.slot() * SLOT_BYTES;
            long seq = recvBuf.getLong(base);
            int len = recvBuf.getInt(base + 8);
            Long expected = sendOrder.poll();
            if (expected == null || seq != expected) {
                mismatches.incrementAndGet();
                problem(name + ": RECV " + w.wrId() + " got SEND " + seq + ", expected SEND " + expected);
                return;
            }
            if (len != length(seq, HEADER) || w.byteLen() != len) {
                mismatches.incrementAndGet();
                problem(name + ": RECV of SEND " + seq + ": byte_len " + w.byteLen() + ", header length " + len
                        + ", sent " + length(seq, HEADER));
                return;
            }
            for (int i = HEADER; i < len; i++) {
                if (recvBuf.get(base + i) != pattern(seq, i)) {
                    mismatches.incrementAndGet();
                    problem(name + ": RECV of SEND " + seq + ": byte " + i + " is " + recvBuf.get(base + i)
                            + ", not " + pattern(seq, i));
                    return;
                }
            }
            if (len < SLOT_BYTES && recvBuf.get(base + len) != (byte) 0xee) {
                mismatches.incrementAndGet();
                problem(name + ": RECV of SEND " + seq + ": written past its " + len + " bytes");
            }
        }

        void destroyMrs() {
            destroy(sendMr == null ? null : sendMr::dereg, name + " send MR");
            destroy(writeSrcMr == null ? null : writeSrcMr::dereg, name + " write source MR");
            destroy(recvMr == null ? null : recvMr::dereg, name + " receive MR");
            destroy(writeDstMr == null ? null : writeDstMr::dereg, name + " write target MR");
        }

        long successes() {
            return sendOk.get() + writeOk.get() + recvOk.get();
        }

        @Override
        public String toString() {
            return name + ": posted " + posted + " (SEND " + sendOk + ", WRITE " + writeOk + ", RECV " + recvOk
                    + ", flushed " + flushedSends + " sends + " + flushedRecvs + " receives, other errors "
                    + otherErrors + "), outstanding " + outstanding.size() + ", unknown " + unknown
                    + ", mismatches " + mismatches + ", end: " + endReason;
        }
    }

    // ---------------------------------------------------------------- tear down (in remove)

    /**
     * The client's remove: stop the traffic, QPs to ERR, drain every outstanding work request,
     * destroy everything. The device still works during this call.
     */
    void close() {
        close(device);
    }

    /** The remove of {@code removed} (either end's device) closes the session. */
    void close(IbDevice removed) {
        closeRan = true;
        closedBy = removed.name();
        closeThread = Thread.currentThread().getName();
        registeredAtClose = removed.isRegistered();
        threadsAliveAtClose = lanes.stream().allMatch(l -> l.thread.isAlive());
        postedAtClose = posted();
        outstandingAtClose = outstanding();
        if (lazy) {
            closed = true;
            return; // ib-core reaps; the lane threads find out when their verbs fail
        }
        stop = true;
        lanes.forEach(l -> LockSupport.unpark(l.thread));
        // at once, while the threads may still be posting: what is queued flushes, and so would a late post
        toErr(a);
        toErr(b);
        long joinDeadline = System.nanoTime() + JOIN_MS * 1_000_000;
        boolean joined = true;
        for (Lane l : lanes) {
            try {
                l.thread.join(Math.max(1, (joinDeadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (l.thread.isAlive()) {
                joined = false;
                problems.add(l.name + ": lane thread did not end within " + JOIN_MS + " ms: " + stackOf(l.thread));
            }
        }
        threadsJoined = joined;
        // the threads are gone: their state is ours now (join is the happens-before edge)
        long t0 = System.nanoTime();
        long deadline = t0 + DRAIN_MS * 1_000_000;
        while (outstanding() > 0 && System.nanoTime() < deadline) {
            int n = 0;
            for (Lane l : lanes) {
                n += l.poll();
            }
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
        drainMillis = (System.nanoTime() - t0) / 1_000_000;
        drainComplete = outstanding() == 0;
        for (Lane l : lanes) {
            if (!l.outstanding.isEmpty()) {
                problems.add(l.name + ": " + l.outstanding.size() + " work requests never completed: " + l.outstanding);
            }
        }
        if (idle != null) {
            // one way: nothing was posted from b or to a, so the other CQ got nothing, not even a flush
            int n = idle.pollStray();
            if (n != 0) {
                problems.add("the unused direction's CQ had a completion");
            }
        }
        completedAtClose = completed();
        // from here on every completion is one too many: arm, so the handler would see it
        drained = true;
        for (Lane l : lanes) {
            l.armAll();
        }
        destroyAll();
        closed = true;
    }

    private void toErr(QueuePair qp) {
        try {
            qp.modify(new QpAttr().state(QpState.ERR));
        } catch (VerbsException e) {
            problems.add("modify QP " + qp.qpNum() + " to ERR failed: " + e.getMessage());
        }
    }

    private void destroyAll() {
        destroy(a == null ? null : a::destroy, "QP a");
        destroy(b == null ? null : b::destroy, "QP b");
        for (Lane l : lanes) {
            l.destroyMrs();
            l.destroyCqs();
        }
        if (idle != null) {
            idle.destroyCqs();
        }
        if (peerPd != pd) {
            destroy(peerPd == null ? null : peerPd::dealloc, "peer PD");
        }
        destroy(pd == null ? null : pd::dealloc, "PD");
    }

    private void destroy(Runnable r, String what) {
        if (r == null) {
            return;
        }
        try {
            r.run();
        } catch (RuntimeException e) {
            problems.add("destroying the " + what + " failed: " + e.getMessage());
        }
    }

    private static String stackOf(Thread t) {
        StringBuilder sb = new StringBuilder(t.getName());
        for (StackTraceElement e : t.getStackTrace()) {
            sb.append("\n\tat ").append(e);
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------- for the test

    private long sum(ToLongFunction<Lane> f) {
        return lanes.stream().mapToLong(f).sum();
    }

    long posted() {
        return sum(l -> l.posted.get());
    }

    long successes() {
        return sum(Lane::successes);
    }

    long flushedSends() {
        return sum(l -> l.flushedSends.get());
    }

    long flushedRecvs() {
        return sum(l -> l.flushedRecvs.get());
    }

    long flushed() {
        return flushedSends() + flushedRecvs();
    }

    long otherErrors() {
        return sum(l -> l.otherErrors.get());
    }

    long unknown() {
        return sum(l -> l.unknown.get());
    }

    long mismatches() {
        return sum(l -> l.mismatches.get());
    }

    long completed() {
        return successes() + flushed() + otherErrors();
    }

    int outstanding() {
        return lanes.stream().mapToInt(l -> l.outstanding.size()).sum();
    }

    List<Thread> threads() {
        return lanes.stream().map(l -> l.thread).toList();
    }

    boolean anyThreadAlive() {
        return lanes.stream().anyMatch(l -> l.thread.isAlive());
    }

    boolean allThreadsAlive() {
        return lanes.stream().allMatch(l -> l.thread.isAlive());
    }

    List<String> endReasons() {
        return lanes.stream().map(l -> l.endReason).toList();
    }

    @Override
    public String toString() {
        return "traffic on " + deviceName + ": posted " + posted() + ", completed " + completed() + " (OK "
                + successes() + ", flushed " + flushedSends() + " sends + " + flushedRecvs()
                + " receives), outstanding " + outstanding() + "; lanes " + lanes + "; handler calls after drain "
                + afterDrain + " / after close " + afterClose + "; problems " + problems;
    }
}
