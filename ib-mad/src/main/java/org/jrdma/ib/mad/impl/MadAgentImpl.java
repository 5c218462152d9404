package org.jrdma.ib.mad.impl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadSend;

/** {@code struct ib_mad_agent_private}. Its mutable state is guarded by the port's lock. */
final class MadAgentImpl implements MadAgent {
    final MadPort port;
    final MadPort.QpInfo qp;
    final MadRegistration reg;
    final MadHandler handler;
    private final int hiTid;
    private final AtomicInteger tidLo = new AtomicInteger();
    /** The sends not done yet, by the caller's MadSend (identity). */
    final Map<MadSend, MadSendWr> outstanding = new LinkedHashMap<>();
    /** Cleared by close or port teardown; read by the callbacks on the MAD thread. */
    volatile boolean open = true;

    MadAgentImpl(MadPort port, MadPort.QpInfo qp, MadRegistration reg, MadHandler handler, int hiTid) {
        this.port = port;
        this.qp = qp;
        this.reg = reg;
        this.handler = handler;
        this.hiTid = hiTid;
    }

    @Override
    public IbDevice device() {
        return port.device;
    }

    @Override
    public int port() {
        return port.port;
    }

    @Override
    public QpType qpType() {
        return qp.type;
    }

    @Override
    public int hiTid() {
        return hiTid;
    }

    @Override
    public long newTid() {
        return (long) hiTid << 32 | (tidLo.incrementAndGet() & 0xffffffffL);
    }

    @Override
    public void send(MadSend send) {
        port.sends.send(this, send);
    }

    @Override
    public void cancel(MadSend send) {
        port.sends.modify(this, send, 0);
    }

    @Override
    public boolean modify(MadSend send, int timeoutMs) {
        if (timeoutMs < 0) {
            throw new VerbsException(Errno.EINVAL, "modify: timeout " + timeoutMs + " ms");
        }
        return port.sends.modify(this, send, timeoutMs);
    }

    @Override
    public void close() {
        List<MadSendWr> flushed;
        synchronized (port) {
            if (!open) {
                return;
            }
            flushed = port.unregisterLocked(this);
        }
        port.layer.flushCallbacks(this, flushed, true);
    }

    /** Runs a callback of this agent on the MAD thread, unless the agent is closed by then. */
    void recvCallback(MadRecv recv) {
        port.layer.execute(() -> {
            if (open) {
                invoke(() -> handler.recv(this, recv));
            }
        });
    }

    void sendDoneCallback(MadSend send, WcStatus status) {
        port.layer.execute(() -> {
            if (open) {
                invoke(() -> handler.sendDone(this, send, status));
            }
        });
    }

    /** Calls the handler; what it throws is logged, never passed on. */
    void invoke(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException | LinkageError e) {
            MadLayer.LOG.log(System.Logger.Level.WARNING, "MAD agent " + this + ": handler threw", e);
        }
    }

    /** Outstanding sends, for tests and diagnostics. */
    List<MadSendWr> outstandingSnapshot() {
        synchronized (port) {
            return new ArrayList<>(outstanding.values());
        }
    }

    @Override
    public String toString() {
        return port.device.name() + "/" + port.port + " " + qp.type + " agent hi_tid 0x" + Integer.toHexString(hiTid)
                + (reg == null ? "" : " " + reg);
    }
}
