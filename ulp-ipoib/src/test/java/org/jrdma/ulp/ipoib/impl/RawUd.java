package org.jrdma.ulp.ipoib.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;

/** A bare UD QP of the test that puts arbitrary bytes on the fabric, as a buggy or hostile peer would. */
final class RawUd {
    static final IbClient OWNER = new IbClient() {
        public String name() {
            return "raw-test";
        }

        public void add(IbDevice d) {
        }

        public void remove(IbDevice d, Object data) {
        }
    };

    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(4096);
    private final MemoryRegion mr;

    RawUd(IbDevice dev) {
        pd = dev.allocPd(OWNER);
        cq = dev.createCq(OWNER, new CqInitAttr().cqe(8));
        qp = pd.createQp(new QpInitAttr().qpType(QpType.UD).cq(cq)
                .cap(new QpCap().maxSendWr(4).maxRecvWr(1).maxSendSge(1).maxRecvSge(1)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(0x1111));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        mr = pd.regMr(buf, Access.LOCAL_WRITE);
    }

    /** Sends {@code bytes} as one UD message to {@code dlid}/{@code qpn} with {@code qkey}; waits for its completion. */
    void send(int dlid, int qpn, int qkey, byte[] bytes) throws InterruptedException {
        buf.put(0, bytes);
        AddressHandle ah = pd.createAh(new AhAttr().portNum(1).dlid(dlid));
        qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(mr.iova(), bytes.length, mr.lkey())).ud(ah, qpn, qkey));
        WorkCompletion[] wc = {new WorkCompletion()};
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cq.poll(wc) == 0 && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertEquals(WcStatus.SUCCESS, wc[0].status());
        ah.destroy();
    }

    void close() {
        qp.destroy();
        mr.dereg();
        cq.destroy();
        pd.dealloc();
    }
}
