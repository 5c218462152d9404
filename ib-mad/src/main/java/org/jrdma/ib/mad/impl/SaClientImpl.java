package org.jrdma.ib.mad.impl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.Multicast;
import org.jrdma.ib.mad.sa.NodeRecord;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ib.mad.sa.SaException;

/**
 * {@code core/sa_query.c} and the join/leave of {@code core/multicast.c} ({@link McastClient}) on the {@link MadService}: one
 * requester agent (no claims) on QP1 of each port used, registered on first use; requests go to the
 * port's SM LID and SM SL. Usable without OSGi: {@code new SaClientImpl(mad)}, {@link #close()}.
 */
public final class SaClientImpl implements SaClient, AutoCloseable {
    /** Resends of an SA request after its timeout (sa_query's {@code retries}). */
    static final int RETRIES = 1;
    private static final int EAGAIN = 11;
    private static final int EINTR = 4;
    private static final int EIO = 5;

    private final MadService mad;
    private final Map<IbDevice, Map<Integer, MadAgent>> agents = new HashMap<>();
    /** {@code core/multicast.c}: local joins to one group share the port's membership. */
    private final McastClient mcast = new McastClient((d, p, method, mask, rec) ->
            send(d, p, method, MCMemberRecord.ATTR_ID, 0, mask, rec, MCAST_TIMEOUT_MS));
    private boolean closed;

    public SaClientImpl(MadService mad) {
        this.mad = mad;
    }

    private synchronized MadAgent agent(IbDevice device, int port) {
        if (closed) {
            throw new VerbsException(Errno.ENODEV, "SA client is closed");
        }
        return agents.computeIfAbsent(device, d -> new HashMap<>()).computeIfAbsent(port,
                p -> mad.registerAgent(device, p, QpType.GSI, null, HANDLER));
    }

    private synchronized void forget(IbDevice device, int port, MadAgent a) {
        Map<Integer, MadAgent> m = agents.get(device);
        if (m != null && m.remove(port, a)) {
            a.close();
        }
    }

    private static final MadHandler HANDLER = new MadHandler() {
        @Override
        @SuppressWarnings("unchecked")
        public void recv(MadAgent agent, MadRecv recv) {
            if (recv.request() == null) {
                return;
            }
            CompletableFuture<Mad> f = (CompletableFuture<Mad>) recv.request().context();
            Mad m = recv.mad();
            if (m.status() != 0) {
                f.completeExceptionally(new SaException(m.status(), -Errno.EINVAL.value(), String.format(
                        "SA answered attribute 0x%04x with status 0x%04x", m.attrId(), m.status())));
            } else {
                f.complete(m);
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
            if (status == WcStatus.SUCCESS) {
                return;
            }
            int errno = status == WcStatus.RESP_TIMEOUT_ERR ? -Errno.ETIMEDOUT.value()
                    : status == WcStatus.WR_FLUSH_ERR ? -EINTR : -EIO;
            ((CompletableFuture<Mad>) send.context()).completeExceptionally(new SaException(-1, errno,
                    "SA query " + send.mad() + ": " + status));
        }
    };

    /**
     * {@code send_mad}: the request to the SM LID; the future gets the answer (status 0) or fails. An answer with
     * MAD status BUSY (an SA at its bound of outstanding answers) is asked again after a pause that doubles
     * ({@link #BUSY_BACKOFF_MS}), up to {@link #BUSY_RETRIES} times; then the BUSY fails the query.
     */
    CompletableFuture<Mad> send(IbDevice device, int port, int method, int attrId, long attrMod, long compMask,
            byte[] record, int timeoutMs) {
        return sendUntilNotBusy(device, port, method, attrId, attrMod, compMask, record, timeoutMs, 0);
    }

    static final int BUSY_RETRIES = 6;
    static final long BUSY_BACKOFF_MS = 25;

    private CompletableFuture<Mad> sendUntilNotBusy(IbDevice device, int port, int method, int attrId, long attrMod,
            long compMask, byte[] record, int timeoutMs, int busy) {
        return sendOnce(device, port, method, attrId, attrMod, compMask, record, timeoutMs).exceptionallyCompose(e -> {
            Throwable c = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
            if (busy < BUSY_RETRIES && c instanceof SaException se && se.madStatus() == Mad.STATUS_BUSY) {
                java.util.concurrent.Executor later = CompletableFuture.delayedExecutor(BUSY_BACKOFF_MS << busy,
                        java.util.concurrent.TimeUnit.MILLISECONDS);
                return CompletableFuture.runAsync(() -> { }, later).thenCompose(x -> sendUntilNotBusy(device, port,
                        method, attrId, attrMod, compMask, record, timeoutMs, busy + 1));
            }
            return CompletableFuture.failedFuture(c);
        });
    }

    private CompletableFuture<Mad> sendOnce(IbDevice device, int port, int method, int attrId, long attrMod,
            long compMask, byte[] record, int timeoutMs) {
        CompletableFuture<Mad> f = new CompletableFuture<>();
        try {
            PortAttr pa = device.queryPort(port);
            if (pa.smLid() == 0) {
                f.completeExceptionally(new SaException(-1, -EAGAIN, device.name() + "/" + port + " knows no SM"));
                return f;
            }
            MadAgent a = agent(device, port);
            Mad m = new Mad().baseVersion(1).mgmtClass(MGMT_CLASS).classVersion(CLASS_VERSION).method(method)
                    .tid(a.newTid()).attrId(attrId).attrMod(attrMod);
            m.u64(48, compMask);
            if (record != null) {
                System.arraycopy(record, 0, m.bytes(), 56, Math.min(record.length, 200));
            }
            MadSend s = new MadSend(m).ah(new AhAttr().dlid(pa.smLid()).sl(pa.smSl())).remoteQpn(1)
                    .remoteQkey(MadService.QP1_QKEY).timeoutMs(timeoutMs).retries(RETRIES).context(f);
            try {
                a.send(s);
            } catch (VerbsException e) {
                forget(device, port, a); // the port went away: a new agent next time
                throw e;
            }
        } catch (VerbsException e) {
            f.completeExceptionally(new SaException(-1, -e.errno().value(), e.getMessage()));
        }
        return f;
    }

    /** The records of an answer: one for Get/Set/Delete, AttributeOffset-spaced ones for GetTable. */
    static List<byte[]> records(Mad m, int size) {
        List<byte[]> l = new ArrayList<>();
        if (m.method() != Mad.METHOD_GET_TABLE + Mad.METHOD_RESP) {
            l.add(java.util.Arrays.copyOfRange(m.bytes(), 56, 56 + Math.max(size, 200)));
            return l;
        }
        int off = m.u16(44) * 8;
        if (off == 0) {
            return l;
        }
        int end = m.length();
        for (int at = 56; at + off <= end; at += off) {
            l.add(java.util.Arrays.copyOfRange(m.bytes(), at, at + off));
        }
        return l;
    }

    private <T> CompletableFuture<List<T>> table(IbDevice device, int port, int attrId, long compMask, byte[] rec,
            int size, int timeoutMs, Function<byte[], T> parse) {
        return send(device, port, Mad.METHOD_GET_TABLE, attrId, 0, compMask, rec, timeoutMs).thenApply(m -> {
            List<T> out = new ArrayList<>();
            for (byte[] b : records(m, size)) {
                out.add(parse.apply(b));
            }
            return out;
        });
    }

    @Override
    public CompletableFuture<PathRecord> pathRecordGet(IbDevice device, int port, Gid sgid, Gid dgid, int timeoutMs) {
        PathRecord r = new PathRecord();
        r.sgid = sgid;
        r.dgid = dgid;
        r.pkey = 0xffff;
        r.numbPath = 1;
        r.reversible = true;
        long mask = PathRecord.DGID | PathRecord.SGID | PathRecord.PKEY | PathRecord.NUMB_PATH | PathRecord.REVERSIBLE;
        return send(device, port, Mad.METHOD_GET, PathRecord.ATTR_ID, 0, mask, r.toWire(), timeoutMs)
                .thenApply(m -> PathRecord.fromWire(m.bytes(), 56));
    }

    @Override
    public CompletableFuture<List<PathRecord>> pathRecords(IbDevice device, int port, PathRecord rec, long compMask,
            int timeoutMs) {
        return table(device, port, PathRecord.ATTR_ID, compMask, rec == null ? null : rec.toWire(), PathRecord.SIZE,
                timeoutMs, b -> PathRecord.fromWire(b, 0));
    }

    @Override
    public CompletableFuture<List<NodeRecord>> nodeRecords(IbDevice device, int port, NodeRecord rec, long compMask,
            int timeoutMs) {
        return table(device, port, NodeRecord.ATTR_ID, compMask, rec == null ? null : rec.toWire(), NodeRecord.SIZE,
                timeoutMs, b -> NodeRecord.fromWire(b, 0));
    }

    @Override
    public CompletableFuture<List<MCMemberRecord>> mcMemberRecords(IbDevice device, int port, MCMemberRecord rec,
            long compMask, int timeoutMs) {
        return table(device, port, MCMemberRecord.ATTR_ID, compMask, rec == null ? null : rec.toWire(),
                MCMemberRecord.SIZE, timeoutMs, b -> MCMemberRecord.fromWire(b, 0));
    }

    @Override
    public CompletableFuture<List<byte[]>> query(IbDevice device, int port, int method, int attrId, long attrMod,
            long compMask, byte[] record, int timeoutMs) {
        return send(device, port, method, attrId, attrMod, compMask, record, timeoutMs).thenApply(m -> records(m, 0));
    }

    /** Join/leave timeout: {@code multicast.c} uses 3000 ms and 3 retries. */
    static final int MCAST_TIMEOUT_MS = 3000;

    @Override
    public Multicast joinMulticast(IbDevice device, int port, MCMemberRecord rec, long compMask,
            Multicast.Callback callback) {
        MCMemberRecord r = rec.copy();
        if (r.portGid == null || r.portGid.isZero()) {
            r.portGid = device.queryGid(port, 0);
        }
        return mcast.join(device, port, r, compMask | MCMemberRecord.PORT_GID, callback);
    }

    @Override
    public CompletableFuture<MCMemberRecord> leave(Multicast multicast) {
        return mcast.free(multicast);
    }

    /** Closes every agent (outstanding queries fail with EINTR). */
    @Override
    public void close() {
        mcast.close();
        List<MadAgent> all = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (Map<Integer, MadAgent> m : agents.values()) {
                all.addAll(m.values());
            }
            agents.clear();
        }
        for (MadAgent a : all) {
            try {
                a.close();
            } catch (RuntimeException e) {
                MadLayer.LOG.log(System.Logger.Level.DEBUG, "SA client close: " + e);
            }
        }
    }
}
