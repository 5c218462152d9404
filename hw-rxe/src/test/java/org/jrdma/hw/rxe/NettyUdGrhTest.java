package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetIcrc;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
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
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A UD SEND over real UDP (two devices on random 127.X.Y.1/.2, each with its own {@link NettyWire}): the
 * receive buffer starts with 20 zero bytes and the IPv4 header of the datagram, from the sender's address
 * to the receiver's, as Linux rxe writes it ({@code rxe_send_data_in}).
 */
class NettyUdGrhTest {
    static {
        LeakCheck.install();
    }

    @AfterAll
    static void noLeaks() throws Exception {
        assertEquals(0, LeakCheck.collect(), "leaked buffers (Netty's detector, or packet slots not returned)");
    }

    final IbClient ulp = new IbClient() {
        public String name() {
            return "netty-ud";
        }

        public void add(IbDevice device) {
        }

        public void remove(IbDevice device, Object data) {
        }
    };

    @Test
    void udReceiveBeginsWithTheIpv4HeaderOfTheDatagram() throws Exception {
        IbCore core = IbCore.newInstance();
        String net = NettyRxeTestBed.randomLoopbackNet();
        NettyWire wa = new NettyWire(NettyWire.Transport.AUTO, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "uda");
        NettyWire wb = new NettyWire(NettyWire.Transport.AUTO, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "udb");
        RxeDevice ra = new RxeDevice("rxe%d", List.of(InetAddress.getByName(net + "1")), 1500, 0x02_00_00_00_00_0aL, wa);
        RxeDevice rb = new RxeDevice("rxe%d", List.of(InetAddress.getByName(net + "2")), 1500, 0x02_00_00_00_00_0bL, wb);
        try {
            ra.icrcCheck(RxeNetIcrc.receiveCheck());
            rb.icrcCheck(RxeNetIcrc.receiveCheck());
            wa.attach(ra);
            wb.attach(rb);
            IbDevice a = ra.register(core.registrar()).device();
            IbDevice b = rb.register(core.registrar()).device();
            core.registerClient(ulp);
            ByteBuffer xbuf = ByteBuffer.allocateDirect(4096);
            ByteBuffer ybuf = ByteBuffer.allocateDirect(4096);
            ProtectionDomain xpd = a.allocPd(ulp);
            ProtectionDomain ypd = b.allocPd(ulp);
            CompletionQueue xcq = a.createCq(ulp, new CqInitAttr().cqe(16));
            CompletionQueue ycq = b.createCq(ulp, new CqInitAttr().cqe(16));
            QpCap cap = new QpCap().maxSendWr(4).maxRecvWr(4);
            QueuePair x = xpd.createQp(new QpInitAttr().qpType(QpType.UD).cq(xcq).cap(cap));
            QueuePair y = ypd.createQp(new QpInitAttr().qpType(QpType.UD).cq(ycq).cap(cap));
            for (QueuePair q : List.of(x, y)) {
                q.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(0x77));
                q.modify(new QpAttr().state(QpState.RTR));
                q.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            }
            MemoryRegion xmr = xpd.regMr(xbuf, Access.LOCAL_WRITE);
            MemoryRegion ymr = ypd.regMr(ybuf, Access.LOCAL_WRITE);
            RxeRcTest.fill(xbuf, 0, 1000, 8);
            for (int i = 0; i < 2048; i++) {
                ybuf.put(i, (byte) 0xee);
            }
            AddressHandle ah = xpd.createAh(new AhAttr().portNum(1).grh(b.queryGid(1, 0), 0));
            y.postRecv(new RecvWr().wrId(1).sgList(new Sge(ymr.iova(), 2048, ymr.lkey())));
            x.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(xmr.iova(), 1000, xmr.lkey())).ud(ah, y.qpNum(), 0x77));
            assertEquals(WcStatus.SUCCESS, next(xcq).status());
            WorkCompletion r = next(ycq);
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals(1000 + 40, r.byteLen());
            assertTrue((r.wcFlags() & WcFlags.GRH) != 0);
            assertEquals(x.qpNum(), r.srcQp());
            RxeRcTest.assertBytes(xbuf, 0, ybuf, 40, 1000);
            // BTH 12 + DETH 8 + 1000 + ICRC 4
            RxeUcUdTest.assertIpv4Grh(ybuf, 0, net + "1", net + "2", 12 + 8 + 1000 + 4);
            assertEquals((byte) 0xee, ybuf.get(1040), "nothing written past the message");
            x.destroy();
            y.destroy();
            ah.destroy();
            xmr.dereg();
            ymr.dereg();
            xcq.destroy();
            ycq.destroy();
            xpd.dealloc();
            ypd.dealloc();
        } finally {
            wa.detach(ra);
            wb.detach(rb);
            ra.close();
            rb.close();
            wa.close();
            wb.close();
        }
    }

    private static WorkCompletion next(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long end = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() - end < 0) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
        }
        throw new AssertionError("no completion within 10 s");
    }
}
