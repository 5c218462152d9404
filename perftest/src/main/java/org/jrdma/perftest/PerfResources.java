package org.jrdma.perftest;

import org.jrdma.ib.core.cli.Polling;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.ToolClient;
import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.function.Consumer;

import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.GlobalRoute;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.perftest.Params.Machine;
import org.jrdma.perftest.Params.Verb;

/**
 * {@code struct pingpong_context} and what {@code perftest_resources.c} does with it: the device and its
 * link ({@code check_link}), the buffer, PD, MR and CQs, the QPs ({@code ctx_init}, INIT) and their way to
 * RTS ({@code ctx_connect}), the work requests the iterations post, and their release.
 * <p>The buffer holds two halves of {@code num_of_qps} slots of {@code max(size, cycle_buffer)} bytes: a
 * QP sends from its slot of the first half and is written or received into in the second.
 */
final class PerfResources {
    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final Params p;
    /** perftest's stderr text of the run. */
    final StringBuilder err;
    private final IbClient owner;
    final IbDevice dev;
    final LinkLayer link;

    /**
     * {@code ctx_init}'s buffer, PD, MR and CQs, made together once the side channel has agreed the cycle
     * buffer (on the CM id's device for {@code -R}), released together; null before.
     */
    Buffers bufs;
    /** The test's QPs: {@code ctx_init}'s, or the one the RDMA CM made through its id. */
    QueuePair[] qps;

    /** The buffer has {@code 2 * num_of_qps} slots of {@code buffSize} bytes. */
    record Buffers(long buffSize, ByteBuffer buf, ProtectionDomain pd, MemoryRegion mr, CompletionQueue sendCq,
            CompletionQueue recvCq) {
        /** What was made of it (a failed {@code ctx_init} has made only a part). */
        void release() {
            if (sendCq != null) {
                Perftest.quietly(sendCq::destroy);
            }
            if (recvCq != null) {
                Perftest.quietly(recvCq::destroy);
            }
            if (mr != null) {
                Perftest.quietly(mr::dereg);
            }
            if (pd != null) {
                Perftest.quietly(pd::dealloc);
            }
        }
    }

    private PerfResources(Params p, StringBuilder err, IbClient owner, IbDevice dev, LinkLayer link) {
        this.p = p;
        this.err = err;
        this.owner = owner;
        this.dev = dev;
        this.link = link;
    }

    /** The device named by {@code -d} (or the first) and {@code check_link}; warnings go to {@code warn}. */
    static PerfResources open(Params p, IbCore core, IbClient owner, PrintStream out, StringBuilder err,
            Consumer<String> warn) {
        IbDevice dev = findDevice(p, core, err);
        LinkLayer link = checkLink(p, dev, out, err, warn);
        return new PerfResources(p, err, owner, dev, link);
    }

    private static IbDevice findDevice(Params p, IbCore core, StringBuilder err) {
        IbDevice dev = ToolClient.findDevice(core, p.ibDevname, err);
        if (dev == null) {
            err.append(" Unable to find the Infiniband/RoCE device\n");
            throw Exit.exit(1);
        }
        p.ibDevname = dev.name();
        return dev;
    }

    /** {@code check_link}: link layer, the default GID index, max inline and outstanding reads. */
    private static LinkLayer checkLink(Params p, IbDevice dev, PrintStream out, StringBuilder err,
            Consumer<String> warn) {
        PortAttr pa;
        try {
            if (p.ibPort > dev.physPortCnt()) {
                throw new VerbsException(org.jrdma.ib.core.Errno.EINVAL, "port");
            }
            pa = dev.queryPort(p.ibPort);
        } catch (VerbsException e) {
            err.append(" Unable to query port ").append(p.ibPort).append(" attributes\n");
            err.append(" Couldn't set the link layer\n");
            err.append(" Couldn't get context for the device\n");
            throw Exit.exit(1);
        }
        if (pa.state() != org.jrdma.ib.core.PortState.ACTIVE) {
            err.append(" Port number ").append(p.ibPort).append(" state is ").append(pa.state().name()).append('\n');
            err.append(" Couldn't set the link layer\n");
            err.append(" Couldn't get context for the device\n");
            throw Exit.exit(1);
        }
        LinkLayer link = dev.linkLayer(p.ibPort);
        if (link == LinkLayer.ETHERNET && p.gidIndex == -1) {
            p.gidIndex = 0;
        }
        // ctx_set_max_inline: no jrdma device is one perftest recognizes
        if (p.inlineSize != Params.DEF_INLINE) {
            out.print(Params.RESULT_LINE);
            warn.accept("Device not recognized to implement inline feature. Disabling it\n");
        }
        p.inlineSize = 0;
        if (p.verb == Verb.READ || p.verb == Verb.ATOMIC) {
            int max = dev.queryDevice().maxQpRdAtom();
            if (p.outReads > max) {
                out.print(Params.RESULT_LINE);
                warn.accept(" Number of outstanding reads is above max = " + max + "\n Changing to that max value\n");
                p.outReads = max;
            } else if (p.outReads <= 0) {
                p.outReads = max;
            }
        } else {
            p.outReads = 1;
        }
        return link;
    }

    /** {@code ctx_init}: buffer and MR, CQs, the QPs in INIT. */
    void ctxInit() {
        allocBuffers(dev);
        qps = new QueuePair[p.numOfQps];
        for (int i = 0; i < p.numOfQps; i++) {
            try {
                qps[i] = bufs.pd().createQp(qpInitAttr());
            } catch (VerbsException e) {
                err.append(" Unable to create QP.\n");
                err.append("Failed to create QP.\n");
                err.append(" Couldn't create IB resources\n");
                throw Exit.exit(1);
            }
            try {
                qps[i].modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(p.ibPort)
                        .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC));
            } catch (VerbsException e) {
                err.append(" Failed to modify QP to INIT, ret=22\n");
                err.append("Failed to modify QP to INIT\n");
                err.append(" Couldn't create IB resources\n");
                throw Exit.exit(1);
            }
        }
    }

    /** {@code ctx_init} for {@code -R}: the resources on the CM id's device, the QP created through the id. */
    void ctxInitCm(RdmaCmId id) {
        if (bufs == null) { // a retried connect keeps the buffers of the first attempt
            allocBuffers(id.device());
        }
        qps = new QueuePair[] {id.createQp(bufs.pd(), qpInitAttr())};
    }

    /** After a rejected {@code -R} connect: its QP went with its id. */
    void dropQps() {
        qps = null;
    }

    private void allocBuffers(IbDevice d) {
        long buffSize = Math.max(p.size, p.cycleBuffer);
        long total = 2 * p.numOfQps * buffSize;
        if (total > Integer.MAX_VALUE) {
            err.append("Couldn't allocate work buf.\n");
            throw Exit.exit(1);
        }
        ByteBuffer buf;
        try {
            buf = ByteBuffer.allocateDirect((int) total);
        } catch (OutOfMemoryError e) {
            err.append("Couldn't allocate work buf.\n"); // posix_memalign failing
            throw Exit.exit(1);
        }
        byte seed = (byte) (p.machine == Machine.CLIENT ? 0x5a : 0x3c);
        for (int i = 0; i < buf.capacity(); i++) {
            buf.put(i, (byte) (seed + i * 7));
        }
        ProtectionDomain pd;
        try {
            pd = d.allocPd(owner);
        } catch (VerbsException e) {
            err.append("Couldn't allocate PD\n");
            err.append(" Couldn't create IB resources\n");
            throw Exit.exit(1);
        }
        MemoryRegion mr;
        try {
            mr = pd.regMr(buf.duplicate().clear(),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
        } catch (VerbsException e) {
            new Buffers(buffSize, buf, pd, null, null, null).release();
            err.append("Couldn't allocate MR\n");
            err.append(" Couldn't create IB resources\n");
            throw Exit.exit(1);
        }
        CompletionQueue sendCq = null;
        try {
            sendCq = d.createCq(owner, new CqInitAttr().cqe(Math.max(1, p.txDepth * p.numOfQps)));
            CompletionQueue recvCq = d.createCq(owner, new CqInitAttr().cqe(
                    Math.max(1, (p.verb == Verb.SEND ? p.rxDepth : 1) * p.numOfQps)));
            bufs = new Buffers(buffSize, buf, pd, mr, sendCq, recvCq);
        } catch (VerbsException e) {
            new Buffers(buffSize, buf, pd, mr, sendCq, null).release();
            err.append("Couldn't create CQ\n");
            err.append(" Couldn't create IB resources\n");
            throw Exit.exit(1);
        }
    }

    private QpInitAttr qpInitAttr() {
        return new QpInitAttr().qpType(QpType.RC).sendCq(bufs.sendCq()).recvCq(bufs.recvCq())
                .cap(new QpCap().maxSendWr(p.txDepth).maxRecvWr(p.verb == Verb.SEND ? p.rxDepth : 1)
                        .maxSendSge(1).maxRecvSge(1).maxInlineData(p.inlineSize));
    }

    /** Where QP {@code qp} is written or received into: its slot of the buffer's second half. */
    long remoteAddr(int qp) {
        return bufs.mr().iova() + (p.numOfQps + qp) * bufs.buffSize();
    }

    /** {@code ctx_connect}: RTR and RTS with perftest's attributes (the RDMA CM did it for {@code -R}). */
    void connectQps(Communication c) {
        if (p.rdmaCm) {
            return;
        }
        for (int i = 0; i < p.numOfQps; i++) {
            Dest rem = c.rem[i];
            AhAttr av = new AhAttr().dlid(rem.lid() & 0xffff).sl(p.sl).srcPathBits(0).portNum(p.ibPort);
            if (c.withGid) {
                av.grh(new GlobalRoute().dgid(Gid.of(rem.gid())).sgidIndex(p.gidIndex).hopLimit(0xff)
                        .trafficClass(0));
            }
            try {
                QpAttr rtr = new QpAttr().state(QpState.RTR).av(av).pathMtu(c.currMtu).destQpNum(rem.qpn())
                        .rqPsn(rem.psn()).maxDestRdAtomic(c.my[i].outReads()).minRnrTimer(12);
                qps[i].modify(rtr);
            } catch (VerbsException e) {
                err.append("Failed to modify QP ").append(qps[i].qpNum()).append(" to RTR\n");
                err.append(" Unable to Connect the HCA's through the link\n");
                throw Exit.exit(1);
            }
            try {
                qps[i].modify(new QpAttr().state(QpState.RTS).sqPsn(c.my[i].psn()).timeout(p.qpTimeout).retryCnt(7)
                        .rnrRetry(7).maxRdAtomic(Math.max(1, rem.outReads())));
            } catch (VerbsException e) {
                err.append("Failed to modify QP to RTS\n");
                err.append(" Unable to Connect the HCA's through the link\n");
                throw Exit.exit(1);
            }
        }
    }

    // ------------------------------------------------------------------ work requests

    /** The test's work request for QP {@code qp}: {@code size} bytes from its slot, to {@code rem}'s buffer. */
    SendWr sendWr(int qp, long size, Dest rem) {
        long local = bufs.mr().iova() + qp * bufs.buffSize();
        SendWr wr = new SendWr().wrId(qp).sgList(new Sge(local, (int) size, bufs.mr().lkey()));
        switch (p.verb) {
            case SEND -> wr.opcode(WrOpcode.SEND);
            case WRITE -> wr.opcode(WrOpcode.RDMA_WRITE).remote(rem.vaddr(), rem.rkey());
            case READ -> wr.opcode(WrOpcode.RDMA_READ).remote(rem.vaddr(), rem.rkey());
            case ATOMIC -> {
                wr.opcode(p.fetchAndAdd ? WrOpcode.ATOMIC_FETCH_AND_ADD : WrOpcode.ATOMIC_CMP_AND_SWP)
                        .remote(rem.vaddr(), rem.rkey());
                if (p.fetchAndAdd) {
                    wr.compareAdd(1);
                } else {
                    wr.swap(0);
                }
            }
        }
        return wr;
    }

    RecvWr recvWr(int qp, long size) {
        return new RecvWr().wrId(qp).sgList(new Sge(remoteAddr(qp), (int) size, bufs.mr().lkey()));
    }

    void post(QueuePair qp, SendWr wr, String what) {
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            err.append(what);
            throw Exit.exit(1);
        }
    }

    /** {@code ctx_set_recv_wqes}: rx_depth receives per QP into the second half of the buffer. */
    void setRecvWqes(long size) {
        for (int i = 0; i < p.numOfQps; i++) {
            RecvWr rwr = recvWr(i, size);
            for (int k = 0; k < p.rxDepth; k++) {
                try {
                    qps[i].postRecv(rwr);
                } catch (VerbsException e) {
                    err.append("Couldn't post recv Qp = ").append(i).append(" With ").append(k).append('\n');
                    err.append(" Failed to post receive recv_wqes\n");
                    throw Exit.exit(1);
                }
            }
        }
    }

    /** A completion that failed, in perftest's words; {@code counters} is its "scnt=..., ccnt=..." line. */
    void completionError(WorkCompletion wc, String where, String counters) {
        err.append(" Completion with error at ").append(where).append('\n');
        err.append(" Failed status ").append(Perftest.wcStatusCode(wc.status())).append(": wr_id ").append((int) wc.wrId())
                .append(" syndrom 0x").append(Integer.toHexString(wc.vendorErr())).append('\n');
        err.append(counters);
        throw Exit.exit(1);
    }

    /** Polls {@code cq} until it gives one completion, into {@code wc[0]}, idling in between. */
    static void awaitOne(CompletionQueue cq, WorkCompletion[] wc) {
        int empty = 0;
        while (cq.poll(wc, 1) == 0) {
            Polling.idle(empty++);
        }
    }

    /** A byte of the buffer as the peer's RDMA WRITE left it (a volatile read of its word). */
    byte readByte(int at) {
        int word = at & ~3;
        int v = (int) INTS.getVolatile(bufs.buf(), word);
        int shift = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? (at - word) * 8 : (3 - (at - word)) * 8;
        return (byte) (v >>> shift);
    }

    /** Everything but what the RDMA CM owns ({@code cmComm} releases that first). */
    void release(CmComm cmComm) {
        if (qps != null) {
            for (QueuePair qp : qps) {
                if (qp != null && (cmComm == null || !cmComm.ownsQp(qp))) {
                    Perftest.quietly(qp::destroy);
                }
            }
        }
        if (bufs != null) {
            bufs.release();
        }
    }
}
