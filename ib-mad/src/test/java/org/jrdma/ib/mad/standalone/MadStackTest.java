package org.jrdma.ib.mad.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.loopback.standalone.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.sa.PathRecord;
import org.junit.jupiter.api.Test;

/** The exported stack: MAD layer, SA client and an SM on a core the test owns. */
class MadStackTest {
    @Test
    void anSmOnOnePortConfiguresTheSubnetAndItsSaAnswersPathRecords() throws Exception {
        IbCore core = IbCore.newInstance();
        try (LoopbackFabric f = LoopbackFabric.open(core); MadStack mad = MadStack.open(core)) {
            IbDevice lo0 = f.add("lo%d", 2);
            mad.startSm(lo0, 1);
            int smLid = lo0.queryPort(1).lid();
            assertEquals(List.of(smLid, smLid), List.of(lo0.queryPort(1).smLid(), lo0.queryPort(2).smLid()));
            IbDevice lo1 = f.add("lo%d", 1);
            mad.sweep(); // a device plugged in later: the next sweep gives it the SM LID
            assertEquals(smLid, lo1.queryPort(1).smLid());
            PathRecord pr = mad.sa().pathRecordGet(lo0, 1, lo0.queryGid(1, 0), lo1.queryGid(1, 0), 5000)
                    .get(10, TimeUnit.SECONDS);
            assertEquals(lo1.queryPort(1).lid(), pr.dlid);
        }
    }

    @Test
    void misuseIsAPreciseError() throws Exception {
        IbCore core = IbCore.newInstance();
        try (LoopbackFabric f = LoopbackFabric.open(core); MadStack mad = MadStack.open(core)) {
            IbDevice lo0 = f.add("lo%d", 1);
            assertEquals("ib-mad: no SM runs", assertThrows(IllegalStateException.class, mad::sweep).getMessage());
            assertEquals("ib-mad: lo0 has no InfiniBand port 2",
                    assertThrows(IllegalArgumentException.class, () -> mad.startSm(lo0, 2)).getMessage());
            mad.startSm(lo0, 1);
            assertEquals("ib-mad: an SM runs already on lo0/1",
                    assertThrows(IllegalStateException.class, () -> mad.startSm(lo0, 1)).getMessage());
        }
        assertEquals("ib-mad: core is null", assertThrows(IllegalArgumentException.class, () -> MadStack.open(null)).getMessage());
    }
}
