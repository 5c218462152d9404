package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.jrdma.hw.rxe.RxeFabric.Side;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * An RC SEND that meets no receive (RNR NAK) while more SENDs and WRITEs follow it: once the receives are
 * posted, every WQE must complete successfully (rnr_retry 7 retries forever), as the itest's traffic
 * sessions start (RxeHotUnplugTest saw RETRY_EXC_ERR on the first SEND now and then).
 */
class RxeRnrBurstTest {
    @Test
    void rnrNakedSendFollowedByABurstCompletes() throws Exception {
        try (RxeFabric f = new RxeFabric(1, 4096 + 80)) {
            for (int round = 0; round < 40; round++) {
                Side x = f.side(f.a, QpType.RC, 64, 64 * 1024);
                Side y = f.side(f.b, QpType.RC, 64, 64 * 1024);
                RxeFabric.connectBoth(x, y, new RxeFabric.Conn());
                int wr = 0;
                x.qp.postSend(new SendWr().wrId(wr++).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(x.mr.iova(), 49, x.mr.lkey())));
                for (int i = 0; i < 16; i++) {
                    y.qp.postRecv(new RecvWr().wrId(100 + i).sgList(new Sge(y.mr.iova() + i * 1024, 1024, y.mr.lkey())));
                }
                for (int i = 0; i < 7; i++) {
                    x.qp.postSend(new SendWr().wrId(wr++).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                            .sgList(new Sge(x.mr.iova() + i * 1024, 100 + i, x.mr.lkey())));
                    x.qp.postSend(new SendWr().wrId(wr++).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                            .sgList(new Sge(x.mr.iova() + i * 1024, 500 + i, x.mr.lkey()))
                            .remote(y.mr.iova() + 32 * 1024 + i * 1024, y.mr.rkey()));
                }
                for (int i = 0; i < wr; i++) {
                    WorkCompletion c = x.next(5000);
                    assertEquals(WcStatus.SUCCESS, c.status(), "round " + round + ": " + c + "; a " + f.ra.counters()
                            + " b " + f.rb.counters());
                    assertEquals(i, c.wrId(), "round " + round + ": in order");
                }
                for (int i = 0; i < 8; i++) {
                    assertEquals(WcStatus.SUCCESS, y.next(5000).status());
                }
            }
        }
    }
}
