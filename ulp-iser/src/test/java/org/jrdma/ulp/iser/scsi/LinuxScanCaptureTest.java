package org.jrdma.ulp.iser.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The exact CDBs Linux's SCSI scan and sd probe sent to LIO in {@code iser_session} (64 MiB ramdisk rd0 as LUN 0
 * of iqn.2003-01.org.linux-iscsi.rxepeer:iser, TPG 1), run through a LunTable with the same set-up, and our
 * answers compared with LIO's where they must agree for sd (capacity, mode pages, VPD layout, lengths and
 * hence residuals). Known differences, by design: the mode block descriptor counts blocks (LIO: last LBA),
 * vendor JRDMA and revision, no ALUA/3PC in INQUIRY byte 5, a name-derived unit serial, the ramdisk is thin
 * (LBPME), REPORT SUPPORTED OPERATION CODES is implemented.
 */
class LinuxScanCaptureTest {
    private static final String TARGET = "iqn.2003-01.org.linux-iscsi.rxepeer:iser";
    private static List<LioExchanges.Exchange> lio;
    private LunTable table;

    @BeforeAll
    static void readCapture() throws Exception {
        lio = LioExchanges.read("iser_session");
    }

    private LunTable table() {
        TreeMap<Integer, ScsiLun> luns = new TreeMap<>();
        luns.put(0, new ScsiLun(new RamdiskBackstore("rd0", 64L << 20), false));
        return new LunTable(luns, new TargetPort(TARGET, 1, 1));
    }

    private ScsiResult run(LunTable t, LioExchanges.Exchange e, ByteBuffer dataIn, byte[] dataOut) {
        return t.execute(new ScsiTask(e.lun(), e.cdb(), e.edtl(), ByteBuffer.wrap(dataOut), dataIn));
    }

    /** What LIO sent as data-in: EDTL minus an underflow residual. */
    private static int lioLength(LioExchanges.Exchange e) {
        return (e.flags() & 0x02) != 0 ? e.edtl() - e.residual() : e.edtl();
    }

    @Test
    void captureHoldsTheScan() {
        assertEquals(39, lio.size(), "SCSI exchanges in iser_session");
        assertEquals(0x2a, lio.stream().filter(e -> e.opcode() == 0x2a).findFirst().orElseThrow().opcode());
    }

    @Test
    void everyScanCommandSucceedsWithLioDataLength() {
        LunTable t = table();
        for (LioExchanges.Exchange e : lio) {
            if (e.opcode() == 0x2a || e.opcode() == 0x28 && e.edtl() == 65536) {
                continue; // the data transfer, checked below
            }
            ByteBuffer in = ByteBuffer.allocate(e.edtl());
            ScsiResult r = run(t, e, e.edtl() == 0 ? null : in, new byte[0]);
            String what = "frame " + e.frame() + " cdb " + Scsi.hex(Arrays.copyOf(e.cdb(), 10));
            assertEquals(ScsiResult.GOOD, r.status(), what);
            if (!differsByDesign(e)) {
                assertEquals(lioLength(e), Math.min(r.dataInLength(), e.edtl()), what + " data-in length");
            }
        }
    }

    /** VPD 0x00 and 0x83 list what we have (no 0x86/0xb3, no ALUA groups); RSOC is supported here. */
    private static boolean differsByDesign(LioExchanges.Exchange e) {
        boolean evpd = e.opcode() == 0x12 && (e.cdb()[1] & 1) == 1;
        int page = e.cdb()[2] & 0xff;
        return evpd && (page == 0x00 || page == 0x83 || page == 0xb0) || e.opcode() == 0xa3;
    }

    @Test
    void capacityModePagesAndLunsAreLiosBytes() {
        LunTable t = table();
        for (LioExchanges.Exchange e : lio) {
            int op = e.opcode();
            if (op != 0x9e && op != 0x1a && op != 0xa0 && !(op == 0x12 && (e.cdb()[1] & 1) == 1
                    && ((e.cdb()[2] & 0xff) == 0xb1 || (e.cdb()[2] & 0xff) == 0xb2))) {
                continue;
            }
            ByteBuffer in = ByteBuffer.allocate(e.edtl());
            ScsiResult r = run(t, e, in, new byte[0]);
            int n = Math.min(r.dataInLength(), e.edtl());
            byte[] ours = Arrays.copyOf(in.array(), n);
            byte[] theirs = Arrays.copyOf(e.dataIn(), lioLength(e));
            if (op == 0x9e) { // READ CAPACITY(16): same capacity and block size; ours is thin (LBPME, LBPRZ)
                assertEquals(0xc0, ours[14] & 0xff);
                ours[14] = 0;
                assertEquals("00 00 00 00 00 01 ff ff 00 00 02 00", Scsi.hex(Arrays.copyOf(ours, 12)));
            }
            if (op == 0x12 && (e.cdb()[2] & 0xff) == 0xb2 && ours.length > 5) { // thin: LBPU/LBPWS/LBPRZ, type 2
                assertEquals(0xe4, ours[5] & 0xff);
                ours[5] = 0;
                ours[6] = 0;
            }
            if (op == 0x1a && ours.length >= 12) {
                // block descriptor: SPC-4's NUMBER OF LOGICAL BLOCKS (131072); LIO puts the last LBA there
                assertEquals("00 02 00 00", Scsi.hex(Arrays.copyOfRange(ours, 4, 8)));
                assertEquals("00 01 ff ff", Scsi.hex(Arrays.copyOfRange(theirs, 4, 8)));
                System.arraycopy(theirs, 4, ours, 4, 4);
            }
            assertArrayEquals(theirs, ours, "frame " + e.frame() + " " + Scsi.hex(ours));
        }
    }

    @Test
    void inquiryMatchesLioLayout() {
        LioExchanges.Exchange e = lio.get(1); // standard INQUIRY, allocation length 96
        assertEquals(96, e.edtl());
        ByteBuffer in = ByteBuffer.allocate(96);
        assertEquals(96, run(table(), e, in, new byte[0]).dataInLength());
        byte[] ours = in.array();
        byte[] theirs = e.dataIn();
        for (int i : new int[] {0, 1, 2, 3, 4, 6, 7}) {
            assertEquals(theirs[i], ours[i], "byte " + i);
        }
        assertArrayEquals(Arrays.copyOfRange(theirs, 16, 32), Arrays.copyOfRange(ours, 16, 32), "product");
        assertArrayEquals(Arrays.copyOfRange(theirs, 36, 96), Arrays.copyOfRange(ours, 36, 96), "descriptors");
        assertEquals("JRDMA   ", new String(ours, 8, 8));
    }

    @Test
    void deviceIdentificationMatchesLioDesignators() {
        LioExchanges.Exchange e = lio.stream().filter(x -> x.opcode() == 0x12 && x.edtl() == 205).findFirst()
                .orElseThrow();
        ByteBuffer in = ByteBuffer.allocate(512);
        ScsiResult r = table().execute(new ScsiTask(0, e.cdb(), 512, ByteBuffer.allocate(0), in));
        byte[] ours = Arrays.copyOf(in.array(), r.dataInLength());
        byte[] theirs = e.dataIn();
        // NAA 6h designator with LIO's company id: the same 5 leading nibbles
        assertEquals(Scsi.hex(Arrays.copyOfRange(theirs, 4, 11)), Scsi.hex(Arrays.copyOfRange(ours, 4, 11)));
        // T10 vendor id "<vendor><name>:<serial>\0": same length (serials are both 36-character UUIDs)
        assertEquals(Scsi.hex(Arrays.copyOfRange(theirs, 24, 28)), Scsi.hex(Arrays.copyOfRange(ours, 24, 28)));
        assertEquals("rd0:", new String(ours, 36, 4));
        // relative target port 1, then the two SCSI name strings byte for byte (LIO adds ALUA groups between)
        assertEquals("51 94 00 04 00 00 00 01", Scsi.hex(Arrays.copyOfRange(ours, 77, 85)));
        assertArrayEquals(Arrays.copyOfRange(theirs, 101, 205), Arrays.copyOfRange(ours, 85, ours.length));
        assertEquals(ours.length - 4, ((ours[2] & 0xff) << 8) | (ours[3] & 0xff), "page length");
    }

    @Test
    void reportSupportedOpcodesForInquiryAnswersInsteadOfCheckCondition() {
        LioExchanges.Exchange e = lio.stream().filter(x -> x.opcode() == 0xa3).findFirst().orElseThrow();
        assertEquals(ScsiResult.CHECK_CONDITION, e.status(), "LIO of Linux 6.1");
        ByteBuffer in = ByteBuffer.allocate(e.edtl());
        ScsiResult r = run(table(), e, in, new byte[0]);
        assertEquals(ScsiResult.GOOD, r.status());
        assertEquals("00 03 00 06 12 01 ff ff ff 00", Scsi.hex(in.array()), "one_command, supported, CDB usage");
    }

    @Test
    void the64KiBWriteReadsBackAsLioReadIt() {
        LioExchanges.Exchange write = lio.stream().filter(x -> x.opcode() == 0x2a).findFirst().orElseThrow();
        LioExchanges.Exchange read = lio.stream().filter(x -> x.opcode() == 0x28 && x.edtl() == 65536)
                .findFirst().orElseThrow();
        LunTable t = table();
        byte[] data = read.dataIn(); // what LIO read back is what sd wrote
        assertEquals(65536, data.length);
        assertEquals(ScsiResult.GOOD, run(t, write, null, data).status());
        ByteBuffer in = ByteBuffer.allocate(65536);
        ScsiResult r = run(t, read, in, new byte[0]);
        assertEquals(65536, r.dataInLength());
        assertArrayEquals(data, in.array());
        assertTrue(new String(data, 0, 16).startsWith("<iser-rxe lba"));
    }
}
