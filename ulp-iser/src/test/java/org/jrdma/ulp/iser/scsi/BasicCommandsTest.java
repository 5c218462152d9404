package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.cdb10;
import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.jrdma.ulp.iser.scsi.Scsi.out;
import static org.jrdma.ulp.iser.scsi.Scsi.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The first commands others need: INQUIRY, READ CAPACITY, READ(10)/WRITE(10) on a ramdisk LUN. */
class BasicCommandsTest {
    private final LunTable table = Scsi.table(new ScsiLun(new RamdiskBackstore("rd0", 64L << 20), false));

    @Test
    void standardInquiryNamesVendorProductAndSpc4() {
        var r = in(table, 0, "12 00 00 00 60 00", 96).good();
        assertEquals(96, r.data().length);
        assertEquals(0x00, r.u8(0), "direct access block device");
        assertEquals(0x06, r.u8(2), "SPC-4");
        assertEquals(0x02, r.u8(3), "response data format 2");
        assertEquals(91, r.u8(4), "additional length");
        assertEquals(0x02, r.u8(7), "CMDQUE");
        assertEquals("JRDMA   rd0             1.0 ", new String(r.data(), 8, 28));
        assertEquals(0x0960, r.be(60, 2), "iSCSI version descriptor");
    }

    @Test
    void readCapacity10Of64MiB() {
        in(table, 0, "25 00 00 00 00 00 00 00 00 00", 8).good().data("00 01 ff ff 00 00 02 00");
    }

    @Test
    void writeThenReadBack() {
        byte[] data = pattern(4096, 1);
        out(table, 0, cdb10(0x2a, 100, 8), data).good();
        var r = in(table, 0, cdb10(0x28, 100, 8), 4096).good();
        assertArrayEquals(data, r.data());
        assertEquals(4096, r.result().dataInLength());
    }

    @Test
    void statisticsCountCommandsAndBytes() {
        ScsiLun lun = table.luns().get(0);
        out(table, 0, cdb10(0x2a, 0, 4), pattern(2048, 2)).good();
        in(table, 0, cdb10(0x28, 0, 2), 1024).good();
        in(table, 0, cdb10(0x28, 0, 8), 1000).good(); // overflow: only the EDTL's bytes are read
        in(table, 0, "00 00 00 00 00 00", 0).good();
        out(table, 0, cdb10(0x2a, 0, 4), 512, pattern(512, 2)).check(Sense.INVALID_FIELD_IN_COMMAND_IU);
        assertEquals(5, lun.commands());
        assertEquals(2048, lun.writeBytes());
        assertEquals(2024, lun.readBytes());
    }
}
