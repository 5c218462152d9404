package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** REPORT SUPPORTED OPERATION CODES (SPC-4 6.35) and the consistency of the opcode table behind it. */
class SupportedOpcodesTest {
    @TempDir
    Path dir;

    private LunTable table() {
        return Stores.RAMDISK.table(dir, 1L << 20, false);
    }

    @Test
    void theTableIsConsistent() {
        for (ScsiOpcode op : ScsiOpcode.values()) {
            byte[] usage = op.usage();
            assertEquals(op.opcode, usage[0] & 0xff, op + ": usage data starts with the opcode");
            Cdb.Format f = Cdb.Format.of(op.opcode);
            assertEquals(f.length, usage.length, op + ": usage data is as long as the CDB");
            if (op.hasServiceAction()) {
                assertEquals(op.serviceAction, usage[1] & 0x1f, op + ": service action in byte 1");
            }
        }
    }

    @Test
    void allCommandsListsEveryTableEntry() {
        int n = ScsiOpcode.values().length;
        var r = in(table(), 0, "a3 0c 00 00 00 00 00 00 10 00 00 00", 4096).good();
        assertEquals(4 + 8 * n, r.data().length);
        assertEquals(8L * n, r.be(0, 4), "COMMAND DATA LENGTH");
        for (int i = 0; i < n; i++) {
            ScsiOpcode op = ScsiOpcode.values()[i];
            int at = 4 + 8 * i;
            assertEquals(op.opcode, r.u8(at), op.name());
            assertEquals(op.hasServiceAction() ? op.serviceAction : 0, r.be(at + 2, 2), op + " service action");
            assertEquals(op.hasServiceAction() ? 1 : 0, r.u8(at + 5), op + " SERVACTV");
            assertEquals(op.cdbLength(), r.be(at + 6, 2), op + " CDB LENGTH");
        }
        var capped = in(table(), 0, "a3 0c 00 00 00 00 00 00 00 0c 00 00", 4096).good();
        assertEquals(12, capped.result().dataInLength(), "allocation length caps");
    }

    @Test
    void allCommandsWithTimeoutsDescriptors() {
        int n = ScsiOpcode.values().length;
        var r = in(table(), 0, "a3 0c 80 00 00 00 00 00 10 00 00 00", 4096).good();
        assertEquals(4 + 20 * n, r.data().length);
        assertEquals(0x02, r.u8(4 + 5), "CTDP");
        assertEquals("00 0a 00 00 00 00 00 00 00 00 00 00",
                Scsi.hex(java.util.Arrays.copyOfRange(r.data(), 12, 24)), "timeouts not specified");
    }

    @Test
    void oneCommand() {
        LunTable t = table();
        in(t, 0, "a3 0c 01 28 00 00 00 00 00 20 00 00", 32).good().data("00 03 00 0a 28 18 ff ff ff ff 00 ff ff 00");
        in(t, 0, "a3 0c 01 e0 00 00 00 00 00 20 00 00", 32).good().data("00 01 00 00"); // not supported
        in(t, 0, "a3 0c 01 9e 00 00 00 00 00 20 00 00", 32).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 2);
        in(t, 0, "a3 0c 02 9e 00 10 00 00 00 20 00 00", 32).good()
                .data("00 03 00 10 9e 10 00 00 00 00 00 00 00 00 ff ff ff ff 00 00");
        in(t, 0, "a3 0c 02 9e 00 11 00 00 00 20 00 00", 32).good().data("00 01 00 00");
        in(t, 0, "a3 0c 02 28 00 00 00 00 00 20 00 00", 32).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 2);
        in(t, 0, "a3 0c 03 28 00 00 00 00 00 20 00 00", 32).good().data("00 03 00 0a 28 18 ff ff ff ff 00 ff ff 00");
        in(t, 0, "a3 0c 03 a3 00 0c 00 00 00 20 00 00", 32).good()
                .data("00 03 00 0c a3 0c 87 ff ff ff ff ff ff ff 00 00");
        in(t, 0, "a3 0c 81 00 00 00 00 00 00 20 00 00", 32).good()
                .data("00 83 00 06 00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00 00 00"); // TUR with RCTD
        in(t, 0, "a3 0c 04 00 00 00 00 00 00 20 00 00", 32).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 2);
    }
}
