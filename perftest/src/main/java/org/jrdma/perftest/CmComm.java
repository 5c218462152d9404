package org.jrdma.perftest;

import org.jrdma.ib.core.cli.Polling;
import org.jrdma.ib.core.cli.Exit;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.perftest.Params.Machine;

/**
 * perftest's {@code -R}: two RDMA CM connections to the same port, the first carrying the side channel
 * ({@code rdma_write_keys} / {@code rdma_read_keys}: RC SENDs of the binary struct, and of the raw data of
 * {@code ctx_xchg_data}), the second the test QP, connected (RTR, RTS) by the CM.
 */
final class CmComm extends Comm {
    static final int TIMEOUT_MS = 2000;
    static final int BUF = 4096;
    private final Params p;
    private final RdmaCm cm;
    private final IbClient owner;
    /** The run's resources: the test QP's connection creates them ({@code ctx_init} on the id's device). */
    private final PerfResources res;
    private final StringBuilder err;
    final BlockingQueue<RdmaCmEvent> events = new LinkedBlockingQueue<>();
    RdmaCmId listenId;
    RdmaCmId commId;
    RdmaCmId testId;
    ProtectionDomain pd;
    CompletionQueue cq;
    MemoryRegion mr;
    ByteBuffer buf;
    final WorkCompletion[] wc = Perftest.wcs(1);

    private CmComm(Params p, RdmaCm cm, IbClient owner, PerfResources res, StringBuilder err) {
        super(p.machine == Machine.CLIENT);
        this.p = p;
        this.cm = cm;
        this.owner = owner;
        this.res = res;
        this.err = err;
    }

    /** {@code rdma_client_connect} / {@code rdma_server_connect}: the side channel's connection. */
    static CmComm establish(Params p, RdmaCm cm, IbClient owner, PerfResources res, Runnable listening,
            StringBuilder err) throws IOException {
        CmComm c = new CmComm(p, cm, owner, res, err);
        try {
            if (c.client) {
                c.commId = c.connect();
            } else {
                c.listenId = cm.createId(c::handle, RdmaPortSpace.TCP);
                c.listenId.bindAddr(new InetSocketAddress(p.port));
                c.listenId.listen(2);
                if (listening != null) {
                    listening.run();
                }
                c.commId = c.accept();
            }
            return c;
        } catch (VerbsException e) {
            c.closeAll();
            throw new IOException(e.getMessage(), e);
        }
    }

    private int handle(RdmaCmId id, RdmaCmEvent ev) {
        events.add(ev);
        return 0;
    }

    private RdmaCmEvent next(RdmaCmEventType want) throws IOException {
        try {
            RdmaCmEvent e = events.poll(30, TimeUnit.SECONDS);
            if (e == null || e.type() != want) {
                throw new IOException("unexpected CM event " + (e == null ? "none" : e.type().str()));
            }
            return e;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new java.nio.channels.ClosedByInterruptException();
        }
    }

    /** The channel's own PD/CQ/buffer on the id's device, and a QP through the id. */
    private void channelResources(RdmaCmId id) {
        pd = id.device().allocPd(owner);
        cq = id.device().createCq(owner, new CqInitAttr().cqe(8));
        buf = ByteBuffer.allocateDirect(2 * BUF);
        mr = pd.regMr(buf.duplicate().clear(), Access.LOCAL_WRITE);
        id.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(2).maxRecvWr(2).maxSendSge(1).maxRecvSge(1)));
        postRecv();
    }

    private void postRecv() {
        commId.qp().postRecv(new RecvWr().wrId(1).sgList(new Sge(mr.iova(), BUF, mr.lkey())));
    }

    private RdmaCmId connect() throws IOException {
        RdmaCmId id = cm.createId(this::handle, RdmaPortSpace.TCP);
        attempt = id;
        InetAddress a = InetAddress.getByName(p.servername);
        id.resolveAddr(null, new InetSocketAddress(a, p.port), TIMEOUT_MS);
        next(RdmaCmEventType.ADDR_RESOLVED);
        id.resolveRoute(TIMEOUT_MS);
        next(RdmaCmEventType.ROUTE_RESOLVED);
        if (commId == null) {
            commId = id;
            channelResources(id);
        } else {
            res.ctxInitCm(id);
        }
        id.connect(connParam());
        next(RdmaCmEventType.ESTABLISHED);
        return id;
    }

    private RdmaCmId accept() throws IOException {
        RdmaCmEvent req = next(RdmaCmEventType.CONNECT_REQUEST);
        RdmaCmId id = req.id();
        if (commId == null) {
            commId = id;
            channelResources(id);
        } else {
            res.ctxInitCm(id);
        }
        id.accept(connParam());
        next(RdmaCmEventType.ESTABLISHED);
        return id;
    }

    private RdmaConnParam connParam() {
        RdmaConnParam cp = new RdmaConnParam().retryCount(7).rnrRetryCount(7);
        if (p.verb == Params.Verb.READ || p.verb == Params.Verb.ATOMIC) {
            cp.responderResources(p.outReads).initiatorDepth(p.outReads);
        }
        return cp;
    }

    /** {@code rdma_cm_client_connection}'s retries: the server listens only after the sync below. */
    static final int CONNECT_RETRIES = 10;
    static final long CONNECT_RETRY_DELAY_MS = 100;

    /**
     * {@code create_rdma_cm_connection}: a sync over the side channel (the server starts listening for the
     * test QP only after it), the test QP's connection (a client tries up to 10 times, 100 ms apart, as a
     * REQ that arrives before the listen is rejected), and a sync after it.
     */
    void connectTest(Communication r) {
        Dest zero = new Dest(0, 0, 0, 0, 0, 0, new byte[16], 0); // my_dest[0], still zeroed at this point
        r.handShake(zero);
        try {
            if (client) {
                for (int i = 0; ; i++) {
                    try {
                        testId = connect();
                        break;
                    } catch (IOException e) {
                        if (e instanceof java.nio.channels.ClosedByInterruptException || i + 1 >= CONNECT_RETRIES) {
                            throw e;
                        }
                        dropFailedTestId();
                        Thread.sleep(CONNECT_RETRY_DELAY_MS);
                    }
                }
            } else {
                testId = accept();
            }
        } catch (java.nio.channels.ClosedByInterruptException | InterruptedException e) {
            throw Exit.interrupted();
        } catch (IOException | VerbsException e) {
            err.append("Failed to create RDMA CM connection with resources.\n");
            throw Exit.exit(1);
        }
        r.handShake(zero);
    }

    /** After a rejected connect: the id and its QP go (rdma_cm_destroy_cma); the buffers stay for the next try. */
    private RdmaCmId attempt;

    private void dropFailedTestId() {
        RdmaCmId id = attempt;
        attempt = null;
        events.clear();
        if (id != null) {
            Perftest.quietly(id::destroyQp);
            Perftest.quietly(id::close);
        }
        res.dropQps();
    }

    boolean ownsQp(QueuePair qp) {
        return testId != null && testId.qp() == qp;
    }

    @Override
    void write(byte[] data) throws IOException {
        buf.put(BUF, data);
        try {
            commId.qp().postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(mr.iova() + BUF, data.length, mr.lkey())));
        } catch (VerbsException e) {
            throw new IOException("Function ibv_post_send failed");
        }
        WorkCompletion w = await(WrOpcode.SEND);
        if (w.status() != WcStatus.SUCCESS) {
            throw new IOException(" Bad wc status " + w.status().ordinal());
        }
    }

    @Override
    byte[] read(int n) throws IOException {
        WorkCompletion w = await(null);
        if (w.status() != WcStatus.SUCCESS) {
            throw new IOException("Bad wc status -- " + w.status().ordinal());
        }
        byte[] d = new byte[n];
        buf.get(0, d);
        try {
            postRecv();
        } catch (VerbsException e) {
            throw new IOException("Couldn't post send");
        }
        return d;
    }

    /** Sends and receives share the channel's CQ: a receive that arrives while awaiting a send completion is kept. */
    private WorkCompletion pendingRecv;

    private WorkCompletion await(WrOpcode send) throws IOException {
        if (send == null && pendingRecv != null) {
            WorkCompletion w = pendingRecv;
            pendingRecv = null;
            return w;
        }
        int empty = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            if (cq.poll(wc, 1) == 1) {
                WorkCompletion w = new WorkCompletion().copyFrom(wc[0]);
                boolean isRecv = w.opcode() == org.jrdma.ib.core.WcOpcode.RECV;
                if (w.status() != WcStatus.SUCCESS || (send == null) == isRecv) {
                    return w;
                }
                if (isRecv) {
                    pendingRecv = w;
                }
                continue;
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new java.nio.channels.ClosedByInterruptException();
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("timeout");
            }
            Polling.idle(empty++);
        }
    }

    @Override
    byte[] keyOf(Dest d, boolean withGid) {
        return d.struct();
    }

    @Override
    Dest parseKey(byte[] msg, boolean withGid) {
        return Dest.parseStruct(msg);
    }

    @Override
    int keySize(boolean withGid) {
        return Dest.STRUCT_SIZE;
    }

    @Override
    public void close() {
        // closeAll releases everything, before the run's own resources (Perftest.release)
    }

    /** Disconnects both connections, releases the channel's resources and the ids. */
    void closeAll() {
        for (RdmaCmId id : new RdmaCmId[] {testId, commId}) {
            if (id != null) {
                Perftest.quietly(id::disconnect);
            }
        }
        if (testId != null) {
            Perftest.quietly(testId::destroyQp);
        }
        if (commId != null) {
            Perftest.quietly(commId::destroyQp);
        }
        if (mr != null) {
            Perftest.quietly(mr::dereg);
        }
        if (cq != null) {
            Perftest.quietly(cq::destroy);
        }
        if (pd != null) {
            Perftest.quietly(pd::dealloc);
        }
        for (RdmaCmId id : new RdmaCmId[] {testId, commId, listenId}) {
            if (id != null) {
                Perftest.quietly(id::close);
            }
        }
        testId = null;
        commId = null;
        listenId = null;
        mr = null;
        cq = null;
        pd = null;
    }
}
