package org.jrdma.ib.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.Rmpp;
import org.junit.jupiter.api.Test;

/** The requester side of RMPP: a GetTable answered in six segments arrives as one reassembled MAD. */
class RmppReassemblyTest {
    @Test
    void multiSegmentResponseIsReassembledAndAcked() throws Exception {
        try (LoopbackMadFabric f = new LoopbackMadFabric(); MadLayer mad = new MadLayer(f.core())) {
            int records = 10;
            int recSize = 112; // a NodeRecord: 108 bytes padded to 8
            int total = records * recSize;
            // B: an SA-like responder that sends the table in 200-byte segments, all at once
            BlockingQueue<Mad> acks = new LinkedBlockingQueue<>();
            MadHandler responder = new MadHandler() {
                @Override
                public void recv(MadAgent agent, MadRecv recv) {
                    Mad req = recv.mad();
                    int segs = (total + 199) / 200;
                    for (int s = 1; s <= segs; s++) {
                        Mad m = new Mad(req.bytes().clone()).method(0x92).status(0);
                        int used = Math.min(200, total - (s - 1) * 200);
                        int flags = Rmpp.FLAG_ACTIVE | (s == 1 ? Rmpp.FLAG_FIRST : 0) | (s == segs ? Rmpp.FLAG_LAST : 0);
                        Rmpp.set(m, Rmpp.TYPE_DATA, flags, s, s == 1 ? total + 20 : s == segs ? used + 20 : 0);
                        m.u16(44, recSize / 8);
                        for (int i = 0; i < 200; i++) {
                            m.u8(56 + i, i < used ? ((s - 1) * 200 + i) % 251 : 0);
                        }
                        agent.send(new MadSend(m).ah(agent.ahAttrFromWc(recv)).remoteQpn(recv.srcQp()));
                    }
                }
            };
            mad.registerAgent(f.b(), 1, QpType.GSI, new MadRegistration(Mad.CLASS_SUBN_ADM, 2, Mad.METHOD_GET_TABLE),
                    responder);
            BlockingQueue<MadRecv> got = new LinkedBlockingQueue<>();
            BlockingQueue<WcStatus> done = new LinkedBlockingQueue<>();
            MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, new MadHandler() {
                @Override
                public void recv(MadAgent agent, MadRecv recv) {
                    got.add(recv);
                }

                @Override
                public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
                    done.add(status);
                }
            });
            Mad req = new Mad().baseVersion(1).mgmtClass(Mad.CLASS_SUBN_ADM).classVersion(2)
                    .method(Mad.METHOD_GET_TABLE).tid(a.newTid()).attrId(0x0011);
            MadSend s = new MadSend(req).ah(f.avTo(f.b())).timeoutMs(2000);
            a.send(s);
            MadRecv r = got.poll(5, TimeUnit.SECONDS);
            assertNotNull(r);
            assertSame(s, r.request());
            assertEquals(WcStatus.SUCCESS, done.poll(5, TimeUnit.SECONDS));
            assertEquals(56 + total, r.mad().bytes().length);
            for (int i = 0; i < total; i++) {
                assertEquals(i % 251, r.mad().u8(56 + i), "byte " + i);
            }
            assertEquals(total + 20, Rmpp.paylenNewwin(r.mad()), "the first segment's PayloadLength");
            Thread.sleep(50);
            assertEquals(6, mad.counters(f.a(), 1).get("rmpp_segs_rcvd"));
            assertEquals(1, mad.counters(f.a(), 1).get("rmpp_reassembled"));
            assertEquals(0, mad.counters(f.b(), 1).get("dropped_unmatched_resp"), "ACKs are consumed, not counted");
            assertEquals(1 + 6, mad.counters(f.a(), 1).get("sent"), "the request and one ACK per segment");
            assertEquals(0, got.size());
        }
    }
}
