package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.hex;
import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** INQUIRY standard data and the VPD pages, byte for byte against SPC-4/SBC-3 layouts. */
class InquiryTest {
    private static final long SIZE = 64L << 20;

    @TempDir
    Path dir;

    private static String ascii(String s) {
        return hex(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static String zeros(int n) {
        return " 00".repeat(n).trim();
    }

    @Test
    void standardDataByteForByte() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        String expected = "00 00 06 02 5b 00 00 02 " + ascii("JRDMA   rd0             1.0 ") + " " + zeros(22)
                + " 00 a0 09 60 04 60 04 c0 " + zeros(30);
        in(t, 0, "12 00 00 00 60 00", 96).good().data(expected);
        var capped = in(t, 0, "12 00 00 00 24 00", 255).good();
        assertEquals(36, capped.result().dataInLength(), "allocation length caps the data");
        assertEquals(expected.substring(0, 36 * 3 - 1), hex(capped.data()));
        var longer = in(t, 0, "12 00 00 01 00 00", 256).good();
        assertEquals(96, longer.result().dataInLength(), "no more than there is: the transport sees underflow");
    }

    @Test
    void aLunThatDoesNotExistAnswersQualifier011() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        var r = in(t, 7, "12 00 00 00 24 00", 36).good();
        assertEquals(0x7f, r.u8(0));
        in(t, 7, "12 01 80 00 24 00", 36).good().data("7f 80 00 00");
        in(t, 7, "00 00 00 00 00 00", 0).check(Sense.LOGICAL_UNIT_NOT_SUPPORTED);
        in(t, 7, "28 00 00 00 00 00 00 00 01 00", 512).check(Sense.LOGICAL_UNIT_NOT_SUPPORTED);
        in(t, 7, "e5 00 00 00 00 00", 0).check(Sense.LOGICAL_UNIT_NOT_SUPPORTED);
    }

    @Test
    void supportedPagesAndUnitSerial() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        in(t, 0, "12 01 00 00 ff 00", 255).good().data("00 00 00 06 00 80 83 b0 b1 b2");
        ScsiLun lun = t.luns().get(0);
        String serial = lun.unitSerial();
        assertEquals(36, serial.length(), "a UUID string, as targetcli's");
        in(t, 0, "12 01 80 00 ff 00", 255).good().data("00 80 00 25 " + ascii(serial) + " 00");
        ScsiLun same = new ScsiLun(new RamdiskBackstore("rd0", 1L << 20), true);
        ScsiLun other = new ScsiLun(new RamdiskBackstore("rd1", SIZE), false);
        assertEquals(serial, same.unitSerial(), "stable: derived from plugin and name only");
        assertNotEquals(serial, other.unitSerial());
    }

    @Test
    void deviceIdentificationWithoutAndWithATargetPort() {
        ScsiLun lun = new ScsiLun(new RamdiskBackstore("rd0", SIZE), false);
        String serial = lun.unitSerial();
        String naa = ("6001405" + serial.replace("-", "")).substring(0, 32).replaceAll("(..)(?!$)", "$1 ");
        String t10 = ascii("JRDMA   rd0:" + serial) + " 00";
        String lu = "01 03 00 10 " + naa + " 02 01 00 31 " + t10;
        TreeMap<Integer, ScsiLun> m = new TreeMap<>();
        m.put(0, lun);
        in(new LunTable(m), 0, "12 01 83 01 00 00", 256).good().data("00 83 00 49 " + lu);
        String port = "iqn.2026-12.org.jrdma:t1,t,0x0002";
        String withPort = lu + " 51 94 00 04 00 00 00 03"
                + " 53 98 00 24 " + ascii(port) + " 00 00 00"
                + " 53 a8 00 1c " + ascii("iqn.2026-12.org.jrdma:t1") + " 00 00 00 00"; // 24 + NUL, padded to 28
        var r = in(new LunTable(m, new TargetPort("iqn.2026-12.org.jrdma:t1", 2, 3)), 0, "12 01 83 01 00 00", 256)
                .good();
        assertEquals(r.data().length - 4, r.be(2, 2), "page length");
        assertEquals(withPort, hex(Arrays.copyOfRange(r.data(), 4, r.data().length)));
    }

    @Test
    void blockLimitsOfThinAndFullLuns() {
        String common = "00 b0 00 3c 01 00 00 01 00 00 20 00 00 00 20 00 00 00 00 00 ";
        in(Stores.RAMDISK.table(dir, SIZE, false), 0, "12 01 b0 00 40 00", 64).good()
                .data(common + "00 40 00 00 00 00 00 40 00 00 00 80 00 00 00 00 00 00 00 00 00 40 00 00 "
                        + zeros(20));
        in(Stores.FILEIO.table(dir, SIZE, false), 0, "12 01 b0 00 40 00", 64).good()
                .data(common + zeros(16) + " 00 00 00 00 00 40 00 00 " + zeros(20));
    }

    @Test
    void blockDeviceCharacteristicsAndProvisioning() {
        LunTable rd = Stores.RAMDISK.table(dir, SIZE, false);
        LunTable fd = Stores.FILEIO.table(dir, SIZE, false);
        in(rd, 0, "12 01 b1 00 40 00", 64).good().data("00 b1 00 3c 00 01 " + zeros(58));
        in(fd, 0, "12 01 b1 00 40 00", 64).good().data("00 b1 00 3c " + zeros(60));
        in(rd, 0, "12 01 b2 00 08 00", 8).good().data("00 b2 00 04 00 e4 02 00");
        in(fd, 0, "12 01 b2 00 08 00", 8).good().data("00 b2 00 04 00 00 00 00");
    }

    @Test
    void invalidInquiryFields() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        in(t, 0, "12 01 89 00 ff 00", 255).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 2); // no ATA page
        in(t, 0, "12 00 80 00 ff 00", 255).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 2); // page w/o EVPD
        in(t, 0, "12 02 00 00 ff 00", 255).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1); // CMDDT
        var r = in(t, 0, "12 02 00 00 ff 00", 255);
        assertEquals(0xc9, r.result().sense()[15] & 0xff, "SKSV, C/D, BPV, bit 1");
    }
}
