package org.jrdma.ulp.iser.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: CDBs into the SCSI target core (what a SCSI Command's CDB, EDTL and immediate data become in the target),
 * on a 1 MiB ramdisk LUN 0 and a read-only LUN 1. Input: the CDB (16 bytes, zero-padded), EDTL (3 bytes, at most
 * 256 KiB: bigger only allocates more), the LUN (1 byte, low bit), then the data-out. Per input: the core answers GOOD
 * with at most EDTL bytes of data-in, or CHECK CONDITION with 18 bytes of fixed sense that is not a handler failure
 * (ASC 0x44, which the core makes of any exception); nothing is thrown. Seeds: the CDBs of the Linux iSER captures.
 */
class CdbFuzzTest {
    private static final int MAX_EDTL = 256 << 10;
    private static LunTable table;

    @FuzzTest(maxDuration = "60s")
    void cdb(byte[] data) {
        if (table == null) {
            table = Scsi.table(new ScsiLun(new RamdiskBackstore("rd0", 1 << 20), false),
                    new ScsiLun(new RamdiskBackstore("rd1", 1 << 20), true));
        }
        byte[] cdb = Arrays.copyOf(data, 16);
        int edtl = data.length >= 19 ? ((data[16] & 0xff) << 16 | (data[17] & 0xff) << 8 | data[18] & 0xff) : 0;
        edtl = Math.min(edtl, MAX_EDTL);
        int lun = data.length >= 20 ? data[19] & 1 : 0;
        byte[] out = data.length > 20 ? Arrays.copyOfRange(data, 20, data.length) : new byte[0];
        ByteBuffer in = edtl == 0 ? null : ByteBuffer.allocate(edtl);
        ScsiResult r = table.execute(new ScsiTask(LunTable.encodeLun(lun), cdb, edtl, ByteBuffer.wrap(out), in));
        String what = "cdb " + Scsi.hex(cdb) + " edtl " + edtl + " lun " + lun;
        assertTrue(r.dataInLength() >= 0, what);
        if (r.status() == ScsiResult.GOOD) {
            assertTrue(in == null || in.position() <= edtl, what);
            return;
        }
        assertEquals(ScsiResult.CHECK_CONDITION, r.status(), what);
        byte[] sense = r.sense();
        assertEquals(18, sense.length, what);
        assertEquals(0x70, sense[0] & 0x7f, what + ": fixed format, current");
        assertNotEquals(0x44, sense[12] & 0xff, what + ": a handler failed (INTERNAL TARGET FAILURE)");
    }
}
