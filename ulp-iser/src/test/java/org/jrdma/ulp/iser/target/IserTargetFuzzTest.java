package org.jrdma.ulp.iser.target;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.testsupport.FuzzWatch;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: received SENDs (iSER header, BHS, AHS, data: login keys, SCSI CDBs, text, TMF, ...) into the target runtime
 * as if from the wire, on a fresh connection per input. Input: a control byte, then SENDs, each a 16-bit big-endian
 * length and that many bytes. Control bit 0: log in first (bit 3: a discovery session, else a normal one), so the
 * SENDs reach the full feature phase; bit 1: CmdSN of each SEND set to the next one the target expects; bit 2: the
 * iSER header's STags and VAs aimed at a 64 KiB buffer of the initiator (else the RDMA READ/WRITE of a command fail).
 * Per input: no handler failure (INTERNAL_ERRORS), no thread dies, the SENDs are accounted for (an answer PDU, a
 * counter moved, a command held in the window, or the target closed the connection), and after the connection closes
 * no connection, session or buffer is left. Seeds: the SENDs of the Linux iSER captures (fuzz/seeds.py).
 */
class IserTargetFuzzTest {
    /** What the target counts when it refuses or drops something. */
    private static final TargetCounter[] REFUSALS = {TargetCounter.REJECTS, TargetCounter.OUT_OF_WINDOW,
        TargetCounter.MALFORMED, TargetCounter.LOGINS_FAILED, TargetCounter.ABORTED, TargetCounter.UNMATCHED_NOP_OUT};
    private static final int ISER_HEADER = 28;
    private static FuzzWatch watch;
    private static MemoryTransport transport;
    private static IserTargetRuntime runtime;
    private static long isid = 0x0100_0000_0000L;

    private static IserTargetRuntime runtime() {
        if (runtime == null) {
            watch = new FuzzWatch();
            transport = new MemoryTransport();
            runtime = TargetFixture.runtime(transport, new TestDirectory().add(ScriptedInitiator.TARGET, 1 << 20));
        }
        return runtime;
    }

    @FuzzTest(maxDuration = "60s")
    void sends(byte[] data) throws Exception {
        IserTargetRuntime rt = runtime();
        int control = data.length > 0 ? data[0] & 0xff : 0;
        Map<TargetCounter, Long> before = new EnumMap<>(rt.counters().snapshot());
        ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL);
        IserBuffer victim = ini.buffer(65536);
        try {
            if ((control & 1) != 0) {
                // a new ISID each time: the same one would reinstate (close) the session of the input before
                ini.login(ScriptedInitiator.INITIATOR, (control & 8) != 0 ? null : ScriptedInitiator.TARGET, isid++,
                        0);
            }
            List<byte[]> sends = split(data);
            for (byte[] s : sends) {
                aim(s, control, ini, victim);
                transport.deliverRaw(ini.connection(), s);
            }
            transport.drain(ini.connection(), true); // the target's handler saw every SEND
            await(() -> rt.sessionsOf(ScriptedInitiator.TARGET).stream().allMatch(x -> x.tasks().isEmpty()),
                    "the commands ended");
            transport.drain(ini.connection(), false); // and what it answered has arrived
            int answers = ini.pending();
            boolean held = rt.sessionsOf(ScriptedInitiator.TARGET).stream().anyMatch(x -> x.window().queued() > 0);
            List<TargetCounter> moved = new ArrayList<>();
            for (TargetCounter c : REFUSALS) {
                if (rt.counters().get(c) != before.get(c)) {
                    moved.add(c);
                }
            }
            assertEquals(before.get(TargetCounter.INTERNAL_ERRORS),
                    rt.counters().get(TargetCounter.INTERNAL_ERRORS), "a handler failed (see the WARNING log)");
            assertTrue(sends.isEmpty() || answers > 0 || !moved.isEmpty() || held || ini.disconnected(),
                    () -> "SENDs neither answered, counted, held nor closed: before " + before + ", after "
                            + rt.counters());
        } finally {
            victim.close();
            ini.close();
            await(() -> rt.connectionCount() == 0 && rt.sessions().isEmpty(), "connections and sessions gone");
            await(() -> transport.buffersInUse() == 0, "no buffer left behind");
        }
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "a handler failure or dead thread: " + failed);
    }

    /** Polls every 0.1 ms (a fuzz input should take about a millisecond), for up to 5 s. */
    private static void await(java.util.function.BooleanSupplier condition, String what) {
        long end = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within 5 s: " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
    }

    /** The SENDs of the input: 16-bit length, bytes; a short last one takes what is left. */
    static List<byte[]> split(byte[] data) {
        List<byte[]> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(data);
        b.position(Math.min(1, data.length));
        while (b.remaining() >= 2) {
            byte[] s = new byte[Math.min(b.getShort() & 0xffff, b.remaining())];
            b.get(s);
            out.add(s);
        }
        return out;
    }

    /** Control bits 1 and 2 (see the class comment) on one SEND, in place. */
    private static void aim(byte[] s, int control, ScriptedInitiator ini, IserBuffer victim) {
        ByteBuffer b = ByteBuffer.wrap(s);
        if ((control & 2) != 0 && s.length >= ISER_HEADER + 28) {
            boolean immediate = (s[ISER_HEADER] & 0x40) != 0;
            b.putInt(ISER_HEADER + 24, immediate ? ini.cmdSn : ini.cmdSn++);
        }
        if ((control & 4) != 0 && s.length >= ISER_HEADER) {
            long off = b.getLong(8) & 0xffff;
            b.putInt(4, victim.rkey()).putLong(8, victim.va() + off);
            b.putInt(16, victim.rkey()).putLong(20, victim.va() + (b.getLong(20) & 0xffff));
        }
    }

    @AfterAll
    static void close() {
        if (runtime != null) {
            System.out.println("IserTargetFuzzTest: counters " + runtime.counters());
            runtime.close();
            transport.close();
            runtime = null;
            watch.close();
        }
    }
}
