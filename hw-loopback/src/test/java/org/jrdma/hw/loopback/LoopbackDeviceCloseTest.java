package org.jrdma.hw.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * {@link LoopbackDevice#close} ends the device's engine thread before it returns. The engine starts with
 * the first timed wait: a SEND to a QP without receives retries RNR on it until the device goes.
 */
class LoopbackDeviceCloseTest {
    /** Rounds of open / engine busy / close: the thread outlives the executor's termination only briefly. */
    static final int ROUNDS = 100;

    static final IbClient ULP = new IbClient() {
        public String name() {
            return "close-test";
        }

        public void add(IbDevice device) {
        }

        public void remove(IbDevice device, Object data) {
        }
    };

    /** The live threads named {@code name}. */
    static List<Thread> alive(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals(name))
                .toList();
    }

    @Test
    void closeLeavesNoEngineThread() throws Exception {
        LoopbackFabric fabric = new LoopbackFabric();
        for (int i = 0; i < ROUNDS; i++) {
            IbCore core = IbCore.newInstance();
            LoopbackDevice lo = new LoopbackDevice(fabric, "loclose%d", 2, 0);
            IbDevice dev = lo.register(core.registrar()).device();
            String engine = "loopback-engine-" + Long.toHexString(lo.nodeGuid);
            ProtectionDomain pd = dev.allocPd(ULP);
            CompletionQueue cq = dev.createCq(ULP, new CqInitAttr().cqe(16));
            QpInitAttr init = new QpInitAttr().qpType(QpType.RC).cq(cq)
                    .cap(new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1));
            QueuePair a = pd.createQp(init);
            QueuePair b = pd.createQp(init);
            TwoQpExampleTest.connect(a, 1, b, 2, dev);
            TwoQpExampleTest.connect(b, 2, a, 1, dev);
            MemoryRegion mr = pd.regMr(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
            // b has no receive: RNR NAK, the retry waits on the engine thread (rnr_retry 7: for ever)
            a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(mr.iova(), 64, mr.lkey())));
            long end = System.nanoTime() + 5_000_000_000L;
            while (alive(engine).isEmpty() && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertEquals(1, alive(engine).size(), "the engine thread started");
            Thread t = alive(engine).get(0);
            lo.close(); // flushes and destroys what the ULP left
            assertFalse(t.isAlive(), "engine thread alive after close, round " + i); // at once, before anything else
            assertEquals(List.of(), alive(engine), "engine thread alive after close, round " + i);
            assertTrue(core.devices().isEmpty());
        }
    }
}
