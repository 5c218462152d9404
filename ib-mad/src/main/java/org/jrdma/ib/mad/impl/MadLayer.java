package org.jrdma.ib.mad.impl;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadService;

/**
 * The MAD layer ({@code core/mad.c}) as an ib-core client: {@code add} opens the special QPs of every
 * port of the device ({@code ib_mad_port_open}), {@code remove} closes them. Usable without OSGi:
 * {@code new MadLayer(core)} registers itself, {@link #close()} unregisters and stops its thread.
 *
 * <p>One thread, "ib-mad", runs everything asynchronous: CQ polling and dispatch, response timers, and
 * every agent callback (so callbacks of one agent never overlap, and handlers may send).
 */
public final class MadLayer implements MadService, IbClient, AutoCloseable {
    static final System.Logger LOG = System.getLogger("org.jrdma.ib.mad");
    /** How long teardown waits for the WR_FLUSH_ERR callbacks of the agents it closes. */
    private static final long FLUSH_WAIT_MS = 5000;

    private final IbCore core;
    private final ScheduledThreadPoolExecutor exec;
    private volatile Thread madThread;
    private final Map<IbDevice, MadPort[]> devices = new ConcurrentHashMap<>();
    /** {@code ib_mad_client_id}. */
    private final AtomicInteger hiTids = new AtomicInteger();
    private volatile boolean closed;

    public MadLayer(IbCore core) {
        this.core = core;
        exec = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "ib-mad");
            t.setDaemon(true);
            madThread = t;
            return t;
        });
        exec.setRemoveOnCancelPolicy(true);
        exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        exec.prestartAllCoreThreads();
        try {
            core.registerClient(this);
        } catch (RuntimeException e) {
            exec.shutdownNow();
            throw e;
        }
    }

    @Override
    public String name() {
        return "mad";
    }

    @Override
    public void add(IbDevice device) {
        MadPort[] ports = new MadPort[device.physPortCnt()];
        try {
            for (int i = 0; i < ports.length; i++) {
                ports[i] = new MadPort(this, device, i + 1);
                ports[i].open();
                if (ports[i].qps[0] != null) {
                    ports[i].sma = new Sma(ports[i]);
                    ports[i].sma.open();
                }
            }
        } catch (RuntimeException e) {
            for (MadPort p : ports) {
                if (p != null) {
                    p.close();
                }
            }
            throw e;
        }
        devices.put(device, ports);
        device.setClientData(this, ports);
    }

    @Override
    public void remove(IbDevice device, Object clientData) {
        MadPort[] ports = devices.remove(device);
        if (ports != null) {
            for (MadPort p : ports) {
                p.close();
            }
        }
    }

    @Override
    public MadAgent registerAgent(IbDevice device, int port, QpType qpType, MadRegistration reg, MadHandler handler) {
        if (device == null || handler == null) {
            throw new VerbsException(Errno.EINVAL, "registerAgent: " + (device == null ? "device" : "handler")
                    + " is null");
        }
        if (qpType != QpType.SMI && qpType != QpType.GSI) {
            throw new VerbsException(Errno.EINVAL, "registerAgent: MAD agents live on SMI or GSI QPs, not " + qpType);
        }
        return port(device, port, "registerAgent").registerAgent(qpType, reg, handler);
    }

    @Override
    public Map<String, Long> counters(IbDevice device, int port) {
        return port(device, port, "counters").counters.snapshot();
    }

    /** Lets an SM on the port answer SMInfo through the port's SMA (null: no SM any more). */
    public void smInfo(IbDevice device, int port, java.util.function.Supplier<byte[]> smInfo) {
        Sma s = sma(device, port);
        if (s == null) {
            throw new VerbsException(Errno.ENODEV, "smInfo: " + device.name() + "/" + port + " has no SMA");
        }
        s.smInfo = smInfo;
    }

    /** The counters of a port, for the SM and SA on it. */
    public void count(IbDevice device, int port, String counter) {
        port(device, port, "count").counters.inc(counter);
    }

    /** The SMA of an InfiniBand port, for the SM on it (SMInfo). */
    Sma sma(IbDevice device, int port) {
        return port(device, port, "sma").sma;
    }

    MadPort port(IbDevice device, int port, String op) {
        MadPort[] ports = devices.get(device);
        if (ports == null) {
            throw new VerbsException(Errno.ENODEV, op + ": no MAD layer on " + (device == null ? null : device.name())
                    + (closed ? " (closed)" : ""));
        }
        if (port < 1 || port > ports.length) {
            throw new VerbsException(Errno.EINVAL, op + ": port " + port + " of " + device.name() + " (1.."
                    + ports.length + ")");
        }
        return ports[port - 1];
    }

    /** Unregisters from ib-core (closing every port and agent) and stops the "ib-mad" thread. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            core.unregisterClient(this);
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.DEBUG, "MAD layer was not registered any more", e);
        }
        exec.shutdown();
        if (!onMadThread()) {
            try {
                if (!exec.awaitTermination(FLUSH_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    exec.shutdownNow();
                }
                // the executor counts as terminated just before its worker thread ends: wait for the thread
                // itself, so that a stopped bundle has no ib-mad thread left when close returns
                Thread t = madThread;
                if (t != null) {
                    t.join(FLUSH_WAIT_MS);
                }
            } catch (InterruptedException e) {
                exec.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }

    int nextHiTid() {
        return hiTids.incrementAndGet();
    }

    boolean onMadThread() {
        return Thread.currentThread() == madThread;
    }

    /** Runs {@code r} on the MAD thread; dropped once the layer is shut down. */
    void execute(Runnable r) {
        try {
            exec.execute(r);
        } catch (RejectedExecutionException e) {
            LOG.log(System.Logger.Level.DEBUG, "MAD layer closed: task dropped");
        }
    }

    ScheduledFuture<?> schedule(Runnable r, long ms) {
        try {
            return exec.schedule(r, ms, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /**
     * The WR_FLUSH_ERR callbacks of a closed agent's sends, on the MAD thread; the caller waits for them
     * (bounded) unless it is the MAD thread itself, which runs them at once (as {@code cancel_mads}).
     */
    void flushCallbacks(MadAgentImpl agent, List<MadSendWr> sends, boolean wait) {
        if (sends.isEmpty()) {
            return;
        }
        Runnable r = () -> {
            for (MadSendWr wr : sends) {
                agent.invoke(() -> agent.handler.sendDone(agent, wr.send, WcStatus.WR_FLUSH_ERR));
            }
        };
        if (onMadThread()) {
            r.run();
            return;
        }
        Future<?> f;
        try {
            f = exec.submit(r);
        } catch (RejectedExecutionException e) {
            r.run();
            return;
        }
        if (!wait) {
            return;
        }
        try {
            f.get(FLUSH_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, agent + ": flush callbacks did not finish", e);
        }
    }
}
