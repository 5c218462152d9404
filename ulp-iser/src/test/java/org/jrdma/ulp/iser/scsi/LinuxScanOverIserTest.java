package org.jrdma.ulp.iser.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.jrdma.ulp.iser.target.ScriptedInitiator;
import org.jrdma.ulp.iser.target.TestDirectory;
import org.junit.jupiter.api.Test;

/**
 * Linux's scan of {@code iser_session} (sd's CDBs, EDTLs and LUN fields as ib_iser sent them to LIO) replayed
 * through the whole target runtime over {@link MemoryTransport}: each SCSI Response has LIO's status, U/O flags
 * and residual count (the transport's part: min(dataIn, EDTL) moved, residual = the difference), except where
 * the data length differs by design (see {@link LinuxScanCaptureTest}).
 */
class LinuxScanOverIserTest {
    @Test
    void everyScanResponseHasLiosStatusFlagsAndResidual() throws Exception {
        List<LioExchanges.Exchange> lio = LioExchanges.read("iser_session");
        TreeMap<Integer, ScsiLun> luns = new TreeMap<>();
        luns.put(0, new ScsiLun(new RamdiskBackstore("rd0", 64L << 20), false));
        TestDirectory dir = new TestDirectory(TestDirectory.PORTAL).add(ScriptedInitiator.TARGET, new LunTable(luns));
        int compared = 0;
        try (MemoryTransport transport = new MemoryTransport();
             IserTargetRuntime runtime = new IserTargetRuntime(transport, dir)) {
            runtime.enable(TestDirectory.PORTAL);
            try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
                ini.login();
                for (LioExchanges.Exchange e : lio) {
                    if (e.opcode() == 0x2a || e.opcode() == 0xa3 || differsByDesign(e)) {
                        continue; // writes need data; RSOC and some VPD pages differ from LIO's by design
                    }
                    IserBuffer buf = ini.buffer(Math.max(e.edtl(), 1));
                    ScsiCommand c = ini.command(e.edtl() > 0, false, e.edtl(), e.cdb());
                    c = new ScsiCommand(false, true, c.read(), false, c.attr(), e.lun(), c.itt(), c.edtl(), c.sn(),
                            e.cdb());
                    ini.send(new IserHeader(false, e.edtl() > 0, 0, 0, buf.rkey(), buf.va()), c, new byte[0]);
                    ScsiResponse r = ini.next(ScsiResponse.class);
                    String what = "frame " + e.frame() + " cdb " + Scsi.hex(Arrays.copyOf(e.cdb(), 10));
                    assertEquals(e.status(), r.status(), what + " status");
                    assertEquals((e.flags() & 0x06) != 0 ? e.flags() & 0x06 : 0,
                            (r.underflow() ? 0x02 : 0) | (r.overflow() ? 0x04 : 0), what + " U/O flags");
                    assertEquals(e.residual(), r.residual(), what + " residual");
                    buf.close();
                    compared++;
                }
            }
        }
        assertTrue(compared >= 20, compared + " exchanges compared");
    }

    private static boolean differsByDesign(LioExchanges.Exchange e) {
        boolean evpd = e.opcode() == 0x12 && (e.cdb()[1] & 1) == 1;
        int page = e.cdb()[2] & 0xff;
        return evpd && (page == 0x00 || page == 0x83 || page == 0xb0);
    }
}
