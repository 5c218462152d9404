package org.jrdma.hw.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
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
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The example of the README: two QPs on lo0 doing SEND/RECV and RDMA WRITE, as a ULP author writes
 * it. Port 1 talks to port 2 of the same two-port device.
 */
class TwoQpExampleTest {
    final IbCore core = IbCore.newInstance();
    final LoopbackDevice lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0);
    final IbClient ulp = new IbClient() {
        public String name() { return "example"; }
        public void add(IbDevice device) { }
        public void remove(IbDevice device, Object data) { }
    };

    @AfterEach
    void close() {
        lo.close();
    }

    /** Waits for the next completion, the way a ULP does: arm, poll, sleep on the handler. */
    static WorkCompletion next(CompletionQueue cq, LinkedBlockingQueue<Object> wakeups) throws InterruptedException {
        WorkCompletion[] wc = {new WorkCompletion()};
        for (int round = 0; round < 100; round++) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            if (cq.reqNotify(CqNotify.NEXT_COMP, true)) {
                continue; // completions raced in: poll again
            }
            wakeups.poll(100, TimeUnit.MILLISECONDS);
        }
        throw new AssertionError("no completion within 10 s");
    }

    @Test
    void sendRecvAndRdmaWriteBetweenTwoPorts() throws Exception {
        IbDevice dev = lo.register(core.registrar()).device();
        assertEquals("lo0", dev.name());
        core.registerClient(ulp);

        LinkedBlockingQueue<Object> wakeups = new LinkedBlockingQueue<>();
        ProtectionDomain pd = dev.allocPd(ulp);
        CompletionQueue cq = dev.createCq(ulp, new CqInitAttr().cqe(64).compHandler(c -> wakeups.add(c)));
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1));
        QueuePair a = pd.createQp(init);
        QueuePair b = pd.createQp(init);
        connect(a, 1, b, 2, dev);
        connect(b, 2, a, 1, dev);

        ByteBuffer abuf = ByteBuffer.allocateDirect(4096);
        ByteBuffer bbuf = ByteBuffer.allocateDirect(4096);
        MemoryRegion amr = pd.regMr(abuf, Access.LOCAL_WRITE);
        MemoryRegion bmr = pd.regMr(bbuf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);

        // SEND/RECV: b posts a receive, a sends
        b.postRecv(new RecvWr().wrId(7).sgList(new Sge(bmr.iova(), 4096, bmr.lkey())));
        byte[] hello = "hello, RDMA".getBytes(StandardCharsets.US_ASCII);
        abuf.put(0, hello);
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(amr.iova(), hello.length, amr.lkey())));
        WorkCompletion w1 = next(cq, wakeups);
        WorkCompletion w2 = next(cq, wakeups);
        WorkCompletion recv = w1.opcode() == WcOpcode.RECV ? w1 : w2;
        WorkCompletion send = recv == w1 ? w2 : w1;
        assertEquals(WcStatus.SUCCESS, send.status());
        assertEquals(1, send.wrId());
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(7, recv.wrId());
        assertEquals(hello.length, recv.byteLen());
        byte[] got = new byte[hello.length];
        bbuf.get(0, got);
        assertEquals("hello, RDMA", new String(got, StandardCharsets.US_ASCII));

        // RDMA WRITE: a writes into b's buffer at offset 1024, b sees no completion
        byte[] data = new byte[2048];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        abuf.put(0, data);
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(amr.iova(), data.length, amr.lkey())).remote(bmr.iova() + 1024, bmr.rkey()));
        WorkCompletion w = next(cq, wakeups);
        assertEquals(WcStatus.SUCCESS, w.status());
        assertEquals(WcOpcode.RDMA_WRITE, w.opcode());
        assertEquals(2048, w.byteLen());
        byte[] written = new byte[2048];
        bbuf.get(1024, written);
        assertTrue(java.util.Arrays.equals(data, written), "the bytes arrived exactly");
    }

    static void connect(QueuePair qp, int port, QueuePair peer, int peerPort, IbDevice dev) {
        int peerLid = dev.queryPort(peerPort).lid();
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(port)
                .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ));
        qp.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(port).dlid(peerLid))
                .pathMtu(dev.queryPort(port).activeMtu()).destQpNum(peer.qpNum()).rqPsn(0)
                .maxDestRdAtomic(1).minRnrTimer(1));
        qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1));
    }
}
