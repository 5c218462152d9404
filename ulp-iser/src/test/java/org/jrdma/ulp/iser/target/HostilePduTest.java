package org.jrdma.ulp.iser.target;

import static org.jrdma.ulp.iser.target.IserTargetRuntimeTest.await;
import static org.jrdma.ulp.iser.target.ScriptedInitiator.BLOCK;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiOpcode;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.OtherHeader;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.pdu.TaskAttribute;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile initiators (fixed seed): random BHSs of every initiator opcode (random flags, CmdSN near and far
 * from the window, random EDTL and STags in random iSER headers, random data segments) in logged-in sessions.
 * The target never fails in a handler, answers or drops, leaks no buffer, and a well-behaved session on the
 * side goes on reading back what it wrote.
 */
class HostilePduTest {
    static final int[] OPCODES = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x10, 0x1c, 0x21, 0x3f};

    MemoryTransport transport;
    IserTargetRuntime runtime;

    @BeforeEach
    void start() {
        transport = new MemoryTransport();
        runtime = TargetFixture.runtime(transport, new TestDirectory().add(ScriptedInitiator.TARGET, 1 << 20));
    }

    @AfterEach
    void stop() {
        runtime.close();
        transport.close();
    }

    @Test
    void randomPdusNeverBreakTheTargetOrAnotherSession() throws Exception {
        Random rnd = new Random(0x15e7);
        byte[] pattern = new byte[8 * BLOCK];
        rnd.nextBytes(pattern);
        try (ScriptedInitiator good = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            good.login(ScriptedInitiator.INITIATOR, ScriptedInitiator.TARGET, 0x99, 0);
            // The hostile sessions' random WRITEs may land anywhere, the good session's check is its own
            // round trip right after each hostile round.
            int sent = 0;
            for (int round = 0; round < 40; round++) {
                try (ScriptedInitiator bad = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
                    bad.login(ScriptedInitiator.INITIATOR, ScriptedInitiator.TARGET, 0x1000 + round, 0);
                    IserBuffer victim = bad.buffer(4096);
                    for (int i = 0; i < 50 && !bad.disconnected(); i++) {
                        if (rnd.nextInt(3) == 0) {
                            ScsiCommand c = plausibleCommand(rnd, bad);
                            IserHeader iser = rnd.nextInt(8) == 0 ? randomIser(rnd, victim)
                                    : new IserHeader(c.write(), c.read(), victim.rkey(), victim.va(), victim.rkey(),
                                            victim.va());
                            bad.send(iser, c, new byte[0]);
                        } else {
                            bad.send(randomIser(rnd, victim), randomBhs(rnd, bad.cmdSn), randomData(rnd));
                        }
                        sent++;
                    }
                    victim.close();
                }
                IserBuffer out = good.buffer(pattern.length); // the last response invalidated the previous STag
                out.buffer().put(pattern);
                good.write(ScriptedInitiator.write10(1000, 8), pattern.length, out, 0);
                assertEquals(ScsiResponse.GOOD, good.next(ScsiResponse.class).status());
                IserBuffer in = good.buffer(pattern.length);
                good.read(ScriptedInitiator.read10(1000, 8), pattern.length, in);
                ScsiResponse r = good.next(ScsiResponse.class);
                assertEquals(ScsiResponse.GOOD, r.status(), "round " + round);
                byte[] back = new byte[pattern.length];
                in.buffer().get(back);
                assertArrayEquals(pattern, back, "round " + round);
                in.close();
                out.close();
            }
            assertTrue(sent > 500, sent + " hostile PDUs");
            // (80: the good session's; many hostile ones end aborted when their connection closes under them)
            assertTrue(runtime.counters().get(TargetCounter.COMMANDS) > 80 + 30, "hostile CDBs ran too");
            assertEquals(0, runtime.counters().get(TargetCounter.INTERNAL_ERRORS));
            assertTrue(runtime.counters().get(TargetCounter.REJECTS) > 0);
            await(() -> runtime.sessions().size() == 1, "hostile sessions ended");
        }
        await(() -> transport.buffersInUse() == 0, "no buffer left behind");
    }

    /** Half the time a plausible iSER header naming the victim buffer (maybe with a bad offset), else noise. */
    private static IserHeader randomIser(Random rnd, IserBuffer victim) {
        if (rnd.nextBoolean()) {
            return IserHeader.CONTROL;
        }
        int stag = rnd.nextInt(4) == 0 ? rnd.nextInt() : victim.rkey();
        long va = victim.va() + rnd.nextInt(8192) - 2048;
        return new IserHeader(rnd.nextBoolean(), rnd.nextBoolean(), stag, va, stag, va);
    }

    /** A SCSI Command that passes the transport checks: a common opcode, random CDB fields, small EDTL. */
    private static ScsiCommand plausibleCommand(Random rnd, ScriptedInitiator bad) {
        int[] ops = {0x00, 0x12, 0x25, 0x28, 0x2a, 0x35, 0x88, 0x8a, 0x9e, 0xa0, 0x1a, 0x5a, 0x42, 0x93};
        byte[] cdb = new byte[16];
        rnd.nextBytes(cdb);
        cdb[0] = (byte) ops[rnd.nextInt(ops.length)];
        boolean read = rnd.nextBoolean();
        // Immediate half the time: the random PDUs may have moved ExpCmdSN past this session's count.
        return new ScsiCommand(rnd.nextBoolean(), true, read, !read, TaskAttribute.SIMPLE, 0, bad.itt++,
                rnd.nextInt(4096), new InitiatorSn(bad.cmdSn++, 0), cdb);
    }

    private static OtherHeader randomBhs(Random rnd, int cmdSn) {
        byte[] b = new byte[48];
        rnd.nextBytes(b);
        b[0] = (byte) (OPCODES[rnd.nextInt(OPCODES.length)] | (rnd.nextBoolean() ? 0x40 : 0));
        int sn = rnd.nextInt(3) == 0 ? rnd.nextInt() : cmdSn + rnd.nextInt(4) - 1;
        b[24] = (byte) (sn >>> 24);
        b[25] = (byte) (sn >>> 16);
        b[26] = (byte) (sn >>> 8);
        b[27] = (byte) sn;
        if ((b[0] & 0x3f) == 0x02 && (b[1] & 0x7f) == 6) {
            b[1] = (byte) 0x85; // TARGET WARM RESET would close the good session too, by design (LIO does)
        }
        if (rnd.nextBoolean()) {
            b[20] = 0; // EDTL below 64 KiB half the time: the data path runs, not only the size checks
            b[21] = 0;
        }
        return new OtherHeader(IscsiOpcode.SNACK, b); // carries the 48 bytes as they are
    }

    private static byte[] randomData(Random rnd) {
        byte[] d = new byte[rnd.nextInt(4) == 0 ? rnd.nextInt(9000) : rnd.nextInt(64)];
        rnd.nextBytes(d);
        return d;
    }
}
