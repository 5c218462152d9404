package org.jrdma.ulp.iser.login;

import io.netty.buffer.Unpooled;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.ulp.iser.capture.RoceSends;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;

/** The login PDUs of the Linux iSER captures (open-iscsi initiator, LIO target), by frame number. */
final class LoginCaptures {
    static final String INITIATOR = "iqn.1993-08.org.debian:01:rxepeer";
    static final String TARGET = "iqn.2003-01.org.linux-iscsi.rxepeer:iser";
    static final long SESSION_ISID = 0x00023d000002L;
    static final long DISCOVERY_ISID = 0x00023d000001L;
    /** LIO's first StatSN in iser_session. */
    static final int SESSION_STATSN = 0x5b9c6445;

    private LoginCaptures() {
    }

    static IscsiPdu pdu(String capture, int frame) throws Exception {
        for (RoceSends.Send s : RoceSends.read(TestVectors.path("iser/" + capture + ".pcap"))) {
            if (s.frame() == frame) {
                return IserPdu.decode(Unpooled.wrappedBuffer(s.payload()), IscsiPdu.MAX_DATA_SEGMENT).pdu();
            }
        }
        throw new AssertionError("no SEND at frame " + frame + " of " + capture);
    }

    /** A data segment's keys as an ordered map (the tests compare key sets, not LIO's order). */
    static Map<String, String> keys(IscsiPdu pdu) throws Exception {
        return map(TextKeys.decode(pdu.data()));
    }

    static Map<String, String> map(TextKeys keys) {
        Map<String, String> m = new LinkedHashMap<>();
        for (TextKey k : keys.keys()) {
            m.put(k.key(), k.value());
        }
        return m;
    }
}
