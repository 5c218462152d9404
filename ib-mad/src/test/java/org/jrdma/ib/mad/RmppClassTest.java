package org.jrdma.ib.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.Rmpp;
import org.junit.jupiter.api.Test;

/**
 * Bytes 24..35 are an RMPP header only in the classes that define one ({@code ib_is_mad_class_rmpp}). A CM
 * MAD whose random communication ID read as "RMPP version 1, ACTIVE, type ACK" was taken for RMPP control and
 * dropped without a count, with all its resends: the rare RDMA CM test that waited 15 s for CONNECT_REQUEST.
 */
class RmppClassTest {
    /** A CM REQ-like MAD whose first class-data bytes look like an active RMPP ACK. */
    static Mad cmLookingLikeRmpp() {
        Mad m = new Mad(new byte[Mad.SIZE]);
        m.u8(0, Mad.BASE_VERSION).u8(1, Mad.CLASS_CM).u8(2, 2).u8(3, Mad.METHOD_SEND);
        m.u16(16, 0x0010); // REQ
        m.u8(24, Rmpp.VERSION).u8(25, Rmpp.TYPE_ACK).u8(26, Rmpp.FLAG_ACTIVE).u8(27, 0x5a);
        return m;
    }

    @Test
    void onlyTheRmppClassesHaveAnRmppHeader() {
        Mad cm = cmLookingLikeRmpp();
        assertFalse(Rmpp.active(cm), "CM class data read as RMPP");
        Mad sa = new Mad(cm.bytes().clone());
        sa.u8(1, Mad.CLASS_SUBN_ADM);
        assertTrue(Rmpp.active(sa));
        for (int c : new int[] {0x03, 0x06, 0x10, 0x12, 0x30, 0x4f}) {
            assertTrue(Rmpp.classUsesRmpp(c), "class " + c);
        }
        for (int c : new int[] {0x01, 0x04, 0x05, 0x07, 0x09, 0x2f, 0x50, 0x81}) {
            assertFalse(Rmpp.classUsesRmpp(c), "class " + c);
        }
    }

    /** End to end on hw-loopback: the CM-class MAD reaches the agent that claims it. */
    @Test
    void aCmMadThatLooksLikeRmppReachesItsAgent() throws Exception {
        try (LoopbackMadFabric f = new LoopbackMadFabric(); MadLayer mad = new MadLayer(f.core())) {
            BlockingQueue<Mad> got = new LinkedBlockingQueue<>();
            mad.registerAgent(f.b(), 1, QpType.GSI, new MadRegistration(Mad.CLASS_CM, 2, Mad.METHOD_SEND),
                    new MadHandler() {
                        @Override
                        public void recv(MadAgent agent, MadRecv recv) {
                            got.add(recv.mad());
                        }

                        @Override
                        public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
                        }
                    });
            MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, new MadHandler() {
                @Override
                public void recv(MadAgent agent, MadRecv recv) {
                }

                @Override
                public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
                }
            });
            Mad m = cmLookingLikeRmpp();
            m.tid(a.newTid());
            a.send(new MadSend(m).ah(f.avTo(f.b())).remoteQpn(1));
            Mad r = got.poll(5, TimeUnit.SECONDS);
            assertNotNull(r, "the CM MAD was swallowed as RMPP control");
            assertEquals(0x5a, r.u8(27));
            assertEquals(0, mad.counters(f.b(), 1).get("dropped_unclaimed"));
        }
    }
}
