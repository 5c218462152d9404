package org.jrdma.ulp.iser.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Random CDBs (each known opcode with random fields, and random opcodes) with random EDTLs and data-out: the
 * core answers GOOD or CHECK CONDITION with 18 bytes of fixed sense, never a handler failure (04/44/00, which
 * a BufferOverflowException or any other bug would become), never writes past the data-in buffer.
 */
class HostileCdbTest {
    private static final int ROUNDS = 4000;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Stores.class)
    void randomCdbsGetPreciseAnswers(Stores kind) {
        LunTable t = kind.table(dir, 1L << 20, false);
        Random random = new Random(14);
        ScsiOpcode[] ops = ScsiOpcode.values();
        int good = 0;
        for (int i = 0; i < ROUNDS; i++) {
            byte[] cdb = new byte[16];
            random.nextBytes(cdb);
            if (i % 4 != 0) { // mostly known commands, so the handlers see hostile fields
                ScsiOpcode op = ops[random.nextInt(ops.length)];
                cdb[0] = (byte) op.opcode;
                if (op.hasServiceAction()) {
                    cdb[1] = (byte) ((cdb[1] & 0xe0) | op.serviceAction);
                }
                if (random.nextBoolean()) { // small LBAs and lengths too, or everything is out of range
                    for (int b = 2; b < 16; b++) {
                        cdb[b] = (byte) (random.nextInt(4) == 0 ? cdb[b] : 0);
                    }
                }
            }
            int edtl = random.nextInt(4) == 0 ? 0 : random.nextInt(70000);
            byte[] out = new byte[random.nextInt(3) == 0 ? edtl : random.nextInt(2048)];
            random.nextBytes(out);
            ByteBuffer in = edtl == 0 ? null : ByteBuffer.allocate(edtl);
            ScsiResult r = t.execute(new ScsiTask(random.nextInt(8) == 0 ? random.nextLong() : 0, cdb, edtl,
                    ByteBuffer.wrap(out), in));
            String what = "round " + i + " cdb " + Scsi.hex(cdb) + " edtl " + edtl;
            assertTrue(r.dataInLength() >= 0, what);
            if (r.status() == ScsiResult.GOOD) {
                good++;
                continue;
            }
            assertEquals(ScsiResult.CHECK_CONDITION, r.status(), what);
            byte[] sense = r.sense();
            assertEquals(18, sense.length, what);
            assertNotEquals(0x44, sense[12] & 0xff, what + ": a handler failed");
        }
        assertTrue(good > ROUNDS / 20, "some commands succeed: " + good);
    }
}
