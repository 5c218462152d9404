package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.cdb10;
import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.jrdma.ulp.iser.scsi.Scsi.out;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** REPORT LUNS, LUN addressing, REQUEST SENSE, TUR, START STOP UNIT and the errors of the command path. */
class PrimaryCommandsTest {
    private static ScsiLun rd(String name) {
        return new ScsiLun(new RamdiskBackstore(name, 1L << 20), false);
    }

    @Test
    void reportLunsInSingleLevelFormat() {
        TreeMap<Integer, ScsiLun> m = new TreeMap<>();
        for (int lun : new int[] {16383, 256, 0, 255, 1}) {
            m.put(lun, rd("rd" + lun));
        }
        LunTable t = new LunTable(m);
        String all = "00 00 00 28 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00"
                + " 00 ff 00 00 00 00 00 00 41 00 00 00 00 00 00 00 7f ff 00 00 00 00 00 00";
        in(t, 0, "a0 00 00 00 00 00 00 00 10 00 00 00", 4096).good().data(all);
        in(t, 3, "a0 00 02 00 00 00 00 00 10 00 00 00", 4096).good().data(all); // from a LUN that is not there
        in(t, 0, "a0 00 01 00 00 00 00 00 10 00 00 00", 4096).good().data("00 00 00 00 00 00 00 00");
        in(t, 0, "a0 00 03 00 00 00 00 00 10 00 00 00", 4096).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 2);
        var capped = in(t, 0, "a0 00 00 00 00 00 00 00 00 10 00 00", 4096).good();
        assertEquals(16, capped.result().dataInLength());
        in(new LunTable(new TreeMap<>()), 0, "a0 00 00 00 00 00 00 00 10 00 00 00", 4096).good()
                .data("00 00 00 08 00 00 00 00 00 00 00 00 00 00 00 00"); // no LUNs: LUN 0 still reported
    }

    @Test
    void lunAddressing() {
        assertEquals(0x0005_0000_0000_0000L, LunTable.encodeLun(5));
        assertEquals(0x4100_0000_0000_0000L, LunTable.encodeLun(256));
        for (int lun : new int[] {0, 1, 255, 256, 4095, 16383}) {
            assertEquals(lun, LunTable.decodeLun(LunTable.encodeLun(lun)));
        }
        assertEquals(7, LunTable.decodeLun(0x4007_0000_0000_0000L), "flat space for a small LUN too");
        assertEquals(-1, LunTable.decodeLun(0x0105_0000_0000_0000L), "peripheral with a bus identifier");
        assertEquals(-1, LunTable.decodeLun(0x8001_0000_0000_0000L), "logical unit addressing");
        assertEquals(-1, LunTable.decodeLun(0x0001_0001_0000_0000L), "second level");
        assertThrows(IllegalArgumentException.class, () -> LunTable.encodeLun(16384));
        TreeMap<Integer, ScsiLun> bad = new TreeMap<>();
        bad.put(16384, rd("x"));
        assertThrows(IllegalArgumentException.class, () -> new LunTable(bad));
    }

    @Test
    void theTableIsASnapshot() {
        TreeMap<Integer, ScsiLun> m = new TreeMap<>();
        m.put(0, rd("rd0"));
        LunTable t = new LunTable(m);
        m.put(1, rd("rd1"));
        assertEquals(1, t.luns().size());
        assertThrows(UnsupportedOperationException.class, () -> t.luns().put(2, rd("rd2")));
        in(t, 1, "00 00 00 00 00 00", 0).check(Sense.LOGICAL_UNIT_NOT_SUPPORTED);
    }

    @Test
    void requestSenseTestUnitReadyStartStop() {
        LunTable t = Scsi.table(rd("rd0"));
        in(t, 0, "03 00 00 00 12 00", 18).good().data("70 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00 00 00");
        in(t, 0, "03 00 00 00 08 00", 18).good().data("70 00 00 00 00 00 00 0a");
        in(t, 4, "03 00 00 00 12 00", 18).good().data("70 00 05 00 00 00 00 0a 00 00 00 00 25 00 00 00 00 00");
        in(t, 0, "03 01 00 00 12 00", 18).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1);
        in(t, 0, "00 00 00 00 00 00", 0).good();
        in(t, 0, "1b 01 00 00 01 00", 0).good();
        in(t, 0, "1b 00 00 00 00 00", 0).good();
        in(t, 0, "1b 00 00 00 30 00", 0).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 4);
    }

    @Test
    void unknownOpcodesAndServiceActions() {
        LunTable t = Scsi.table(rd("rd0"));
        in(t, 0, "e5 00 00 00 00 00", 0).check(Sense.INVALID_COMMAND_OPERATION_CODE);
        in(t, 0, "5e 00 00 00 00 00 00 10 00 00", 4096).check(Sense.INVALID_COMMAND_OPERATION_CODE); // PR IN
        var sa = in(t, 0, "9e 11 00 00 00 00 00 00 00 00 00 00 00 20 00 00", 32)
                .check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1);
        assertEquals(0xcc, sa.result().sense()[15] & 0xff, "SKSV, C/D, BPV, bit 4");
        in(t, 0, "a3 0a 00 00 00 00 00 00 10 00 00 00", 4096).check(Sense.INVALID_FIELD_IN_CDB); // RTPG: no ALUA
        ScsiResult none = t.execute(new ScsiTask(0, new byte[0], 0, null, null));
        assertEquals(Sense.INVALID_COMMAND_OPERATION_CODE.asc(), none.sense()[12]);
        ScsiResult nulls = t.execute(new ScsiTask(0, null, 0, null, null));
        assertEquals(ScsiResult.CHECK_CONDITION, nulls.status());
        // a data-in command without a data-in buffer: nothing written anywhere, length still reported
        ScsiResult noBuffer = t.execute(new ScsiTask(0, Scsi.cdb16(cdb10(0x28, 0, 1)), 512, null, null));
        assertEquals(512, noBuffer.dataInLength());
    }

    /** A backstore whose medium fails: I/O errors, then a bug (a RuntimeException). */
    private static final class FailingBackstore implements Backstore {
        private final boolean bug;

        FailingBackstore(boolean bug) {
            this.bug = bug;
        }

        private void fail() throws IOException {
            if (bug) {
                throw new IllegalStateException("bug");
            }
            throw new IOException("medium");
        }

        @Override
        public String name() {
            return "bad";
        }

        @Override
        public String plugin() {
            return "fileio";
        }

        @Override
        public long size() {
            return 1 << 20;
        }

        @Override
        public int blockSize() {
            return 512;
        }

        @Override
        public void read(long offset, ByteBuffer dst) throws IOException {
            fail();
        }

        @Override
        public void write(long offset, ByteBuffer src) throws IOException {
            fail();
        }

        @Override
        public void discard(long offset, long length) throws IOException {
            fail();
        }

        @Override
        public void flush() throws IOException {
            fail();
        }

        @Override
        public boolean thinProvisioned() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void backstoreFailuresBecomeMediumErrors() {
        LunTable t = Scsi.table(new ScsiLun(new FailingBackstore(false), false));
        in(t, 0, cdb10(0x28, 0, 1), 512).check(Sense.UNRECOVERED_READ_ERROR);
        out(t, 0, cdb10(0x2a, 0, 1), new byte[512]).check(Sense.WRITE_ERROR);
        in(t, 0, "35 00 00 00 00 00 00 00 00 00", 0).check(Sense.WRITE_ERROR);
        byte[] p = UnmapTest.list(0, 8);
        out(t, 0, UnmapTest.cdb(p.length), p).check(Sense.WRITE_ERROR);
        LunTable buggy = Scsi.table(new ScsiLun(new FailingBackstore(true), false));
        in(buggy, 0, cdb10(0x28, 0, 1), 512).check(Sense.INTERNAL_TARGET_FAILURE);
        in(buggy, 0, "12 00 00 00 24 00", 36).good(); // the LUN still answers
    }
}
