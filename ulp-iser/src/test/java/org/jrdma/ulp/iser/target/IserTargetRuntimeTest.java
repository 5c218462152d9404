package org.jrdma.ulp.iser.target;

import static org.jrdma.ulp.iser.target.ScriptedInitiator.BLOCK;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The runtime's full feature phase for SCSI commands: data movement, windows, StatSN, cleanup. */
class IserTargetRuntimeTest {
    static final long LUN_SIZE = 1 << 20;

    MemoryTransport transport;
    TestDirectory directory;
    IserTargetRuntime runtime;

    @BeforeEach
    void start() {
        transport = new MemoryTransport();
        directory = new TestDirectory().add(ScriptedInitiator.TARGET, LUN_SIZE);
        runtime = TargetFixture.runtime(transport, directory);
    }

    @AfterEach
    void stop() {
        runtime.close();
        transport.close();
    }

    @Test
    void loginGivesTsihAndAWindowOf128() throws Exception {
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            LoginResponse rsp = ini.login();
            assertEquals(LoginStatus.SUCCESS, rsp.status());
            assertNotEquals(0, rsp.tsih());
            assertEquals(1, rsp.sn().expCmdSn());
            assertEquals(128, rsp.sn().maxCmdSn(), "MaxCmdSN = ExpCmdSN + 127");
            List<SessionInfo> sessions = runtime.sessions();
            assertEquals(1, sessions.size());
            SessionInfo s = sessions.get(0);
            assertEquals(ScriptedInitiator.INITIATOR, s.initiatorName());
            assertEquals(ScriptedInitiator.TARGET, s.targetName());
            assertEquals(rsp.tsih(), s.tsih());
            assertEquals("023d00000001", s.isidHex());
            assertEquals(List.of(ini.connection().localAddress()), s.remoteAddresses());
            assertEquals(1, runtime.counters().get(TargetCounter.LOGINS_OK));
        }
    }

    @Test
    void unknownTargetFailsTheLoginAndDrops() throws Exception {
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            LoginResponse rsp = ini.login(ScriptedInitiator.INITIATOR, "iqn.2026-12.org.jrdma:nope", 1, 0);
            assertEquals(LoginStatus.TARGET_NOT_FOUND, rsp.status());
            ini.awaitDisconnect();
            assertEquals(1, runtime.counters().get(TargetCounter.LOGINS_FAILED));
            assertTrue(runtime.sessions().isEmpty());
        }
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            LoginResponse rsp = ini.login("iqn.2026-12.org.jrdma:denied", ScriptedInitiator.TARGET, 2, 0);
            assertEquals(LoginStatus.AUTHORIZATION_FAILURE, rsp.status(), "the portal group's ACL");
            ini.awaitDisconnect();
            assertEquals(2, runtime.counters().get(TargetCounter.LOGINS_FAILED));
        }
    }

    @Test
    void inquiryAndReadCapacityWithStatSnAndResidual() throws Exception {
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL);
             IserBuffer buf = ini.buffer(255)) {
            ini.login();
            ScsiCommand inq = ini.read(ScriptedInitiator.inquiry(255), 255, buf);
            ScsiResponse r = ini.next(ScsiResponse.class);
            assertEquals(inq.itt(), r.itt());
            assertEquals(ScsiResponse.GOOD, r.status());
            assertEquals(ini.loginStatSn + 1, r.sn().statSn(), "first StatSN after the login's");
            assertEquals(2, r.sn().expCmdSn());
            assertEquals(129, r.sn().maxCmdSn());
            ByteBuffer data = buf.buffer();
            int produced = (data.get(4) & 0xff) + 5;
            assertEquals(0, data.get(0), "peripheral: direct access block device, connected");
            assertTrue(r.underflow(), "INQUIRY gives less than 255 bytes");
            assertEquals(255 - produced, r.residual());

            IserBuffer cap = ini.buffer(8);
            ini.read(ScriptedInitiator.readCapacity10(), 8, cap);
            ScsiResponse rc = ini.next(ScsiResponse.class);
            assertEquals(ScsiResponse.GOOD, rc.status());
            assertEquals(ini.loginStatSn + 2, rc.sn().statSn());
            assertFalse(rc.underflow() || rc.overflow());
            assertEquals(LUN_SIZE / BLOCK - 1, cap.buffer().getInt(0), "last LBA");
            assertEquals(BLOCK, cap.buffer().getInt(4), "block length");
        }
    }

    /** A ramdisk LUN's small command runs on the connection's thread; a large copy, and a fileio LUN, on a worker. */
    @Test
    void smallMemoryCommandsRunInlineAndLargeOnesOnAWorker() throws Exception {
        List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.jrdma.ulp.iser.scsi.LunTable luns = new org.jrdma.ulp.iser.scsi.LunTable(new java.util.TreeMap<>(
                java.util.Map.of(0, new org.jrdma.ulp.iser.scsi.ScsiLun(
                        new org.jrdma.ulp.iser.scsi.RamdiskBackstore("rd-inline", LUN_SIZE), false))));
        org.jrdma.ulp.iser.scsi.ScsiExecutor recording = new org.jrdma.ulp.iser.scsi.ScsiExecutor() {
            @Override
            public org.jrdma.ulp.iser.scsi.ScsiResult execute(org.jrdma.ulp.iser.scsi.ScsiTask task) {
                threads.add(Thread.currentThread().getName());
                return luns.execute(task);
            }

            @Override
            public boolean mayBlock(long lun) {
                return luns.mayBlock(lun);
            }
        };
        stop();
        transport = new MemoryTransport();
        runtime = TargetFixture.runtime(transport, new TestDirectory().add(ScriptedInitiator.TARGET, recording));
        int small = ScsiTaskRunner.INLINE_MAX / BLOCK;
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login();
            for (int blocks : new int[] {small, small + 1}) { // a buffer each: the response invalidates its STag
                ini.read(ScriptedInitiator.read10(0, blocks), blocks * BLOCK, ini.buffer(blocks * BLOCK));
                assertEquals(ScsiResponse.GOOD, ini.next(ScsiResponse.class).status());
            }
        }
        assertEquals(2, threads.size());
        assertFalse(threads.get(0).startsWith("iser-target-worker"), threads.get(0));
        assertTrue(threads.get(1).startsWith("iser-target-worker"), threads.get(1));
    }

    @Test
    void writeImmediateThenRdmaReadAndReadBackByteExact() throws Exception {
        int length = 32 * BLOCK;
        byte[] pattern = new byte[length];
        new Random(7).nextBytes(pattern);
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login();
            IserBuffer out = ini.buffer(length);
            out.buffer().put(pattern);
            ini.write(ScriptedInitiator.write10(8, 32), length, out, 8192);
            ScsiResponse w = ini.next(ScsiResponse.class);
            assertEquals(ScsiResponse.GOOD, w.status());
            assertFalse(w.underflow() || w.overflow());

            IserBuffer in = ini.buffer(length);
            ini.read(ScriptedInitiator.read10(8, 32), length, in);
            ScsiResponse r = ini.next(ScsiResponse.class);
            assertEquals(ScsiResponse.GOOD, r.status());
            byte[] back = new byte[length];
            in.buffer().get(back);
            assertArrayEquals(pattern, back, "read back what was written, immediate part and RDMA READ part");

            SessionInfo s = runtime.sessions().get(0);
            assertEquals(2, s.commands());
            assertEquals(length, s.bytesRead());
            assertEquals(length, s.bytesWritten());
            assertEquals(length, runtime.counters().get(TargetCounter.WRITE_BYTES));
            assertEquals(length, runtime.counters().get(TargetCounter.READ_BYTES));
        }
    }

    @Test
    void writeAllImmediate() throws Exception {
        byte[] pattern = new byte[2 * BLOCK];
        new Random(8).nextBytes(pattern);
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login();
            IserBuffer out = ini.buffer(pattern.length);
            out.buffer().put(pattern);
            ini.write(ScriptedInitiator.write10(0, 2), pattern.length, out, pattern.length);
            assertEquals(ScsiResponse.GOOD, ini.next(ScsiResponse.class).status());
            IserBuffer in = ini.buffer(pattern.length);
            ini.read(ScriptedInitiator.read10(0, 2), pattern.length, in);
            assertEquals(ScsiResponse.GOOD, ini.next(ScsiResponse.class).status());
            byte[] back = new byte[pattern.length];
            in.buffer().get(back);
            assertArrayEquals(pattern, back);
        }
    }

    @Test
    void readPastTheEndGetsSenseInTheDataSegment() throws Exception {
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login();
            IserBuffer in = ini.buffer(BLOCK);
            ini.read(ScriptedInitiator.read10((int) (LUN_SIZE / BLOCK), 1), BLOCK, in);
            IserPdu pdu = ini.next();
            ScsiResponse r = (ScsiResponse) pdu.pdu().header();
            assertEquals(ScsiResponse.CHECK_CONDITION, r.status());
            byte[] data = pdu.pdu().data();
            int senseLength = (data[0] & 0xff) << 8 | data[1] & 0xff;
            assertEquals(data.length - 2, senseLength, "SenseLength then the sense");
            assertEquals(0x70, data[2] & 0xff);
            assertEquals(0x05, data[2 + 2] & 0x0f, "ILLEGAL REQUEST");
            assertEquals(0x21, data[2 + 12] & 0xff, "LOGICAL BLOCK ADDRESS OUT OF RANGE");
            assertTrue(r.underflow(), "no data moved");
            assertEquals(BLOCK, r.residual());
        }
    }

    @Test
    void anEdtlPastWhatTheTargetStagesIsAnInvalidCdbField() throws Exception {
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login();
            IserBuffer in = ini.buffer(BLOCK);
            ini.read(ScriptedInitiator.read10(0, 1), 32 << 20, in); // MemoryTransport's pool serves 16 MiB
            IserPdu pdu = ini.next();
            assertEquals(ScsiResponse.CHECK_CONDITION, ((ScsiResponse) pdu.pdu().header()).status());
            assertEquals(0x05, pdu.pdu().data()[2 + 2], "ILLEGAL REQUEST");
            assertEquals(0x24, pdu.pdu().data()[2 + 12], "INVALID FIELD IN CDB");
        }
    }

    @Test
    void queueDepth128InFlightWithStatSnInSendOrder() throws Exception {
        int depth = 128;
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login();
            IserBuffer[] bufs = new IserBuffer[depth];
            Set<Integer> itts = new HashSet<>();
            for (int i = 0; i < depth; i++) {
                bufs[i] = ini.buffer(BLOCK);
                bufs[i].buffer().putInt(0, i);
                ScsiCommand c = i % 2 == 0 ? ini.write(ScriptedInitiator.write10(i, 1), BLOCK, bufs[i], 0)
                        : ini.read(ScriptedInitiator.read10(i, 1), BLOCK, bufs[i]);
                itts.add(c.itt());
            }
            int statSn = ini.loginStatSn + 1;
            int lastExp = 0;
            for (int i = 0; i < depth; i++) {
                ScsiResponse r = ini.next(ScsiResponse.class);
                assertEquals(ScsiResponse.GOOD, r.status());
                assertTrue(itts.remove(r.itt()), "one response per ITT");
                assertEquals(statSn++, r.sn().statSn(), "StatSN increments in send order");
                assertEquals(r.sn().expCmdSn() + 127, r.sn().maxCmdSn());
                lastExp = r.sn().expCmdSn();
            }
            assertEquals(1 + depth, lastExp, "all 128 CmdSNs taken");
            assertEquals(depth, runtime.sessions().get(0).commands());
        }
    }

    @Test
    void commandsOutsideTheWindowAreDroppedAndEarlyOnesWait() throws Exception {
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login(); // ExpCmdSN 1, MaxCmdSN 128
            ini.cmdSn = 1 + 128;
            ini.noData(new byte[6]); // TEST UNIT READY beyond MaxCmdSN
            ini.cmdSn = 0;
            ini.noData(new byte[6]); // before ExpCmdSN
            ini.expectSilence(200);
            assertEquals(2, runtime.counters().get(TargetCounter.OUT_OF_WINDOW));

            ini.cmdSn = 2;
            ScsiCommand second = ini.noData(new byte[6]);
            ini.expectSilence(200); // waits for CmdSN 1
            ini.cmdSn = 1;
            ScsiCommand first = ini.noData(new byte[6]);
            ScsiResponse a = ini.next(ScsiResponse.class);
            ScsiResponse b = ini.next(ScsiResponse.class);
            assertEquals(Set.of(first.itt(), second.itt()), Set.of(a.itt(), b.itt()));
            assertEquals(3, b.sn().expCmdSn());
            assertEquals(2, runtime.counters().get(TargetCounter.COMMANDS));
        }
    }

    @Test
    void anStagThatDoesNotCoverEdtlDropsTheConnectionAndFreesEverything() throws Exception {
        ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL);
        ini.login();
        IserBuffer small = ini.buffer(BLOCK);
        byte[] before = new byte[4 * BLOCK];
        ini.write(ScriptedInitiator.write10(0, 4), 4 * BLOCK, small, 0); // EDTL 2 KiB, STag covers 512 bytes
        ini.awaitDisconnect();
        await(() -> runtime.sessions().isEmpty(), "session cleaned up");
        small.close();
        await(() -> transport.buffersInUse() == 0, "target buffers freed");

        try (ScriptedInitiator again = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            again.login();
            IserBuffer in = again.buffer(4 * BLOCK);
            again.read(ScriptedInitiator.read10(0, 4), 4 * BLOCK, in);
            assertEquals(ScsiResponse.GOOD, again.next(ScsiResponse.class).status());
            byte[] back = new byte[4 * BLOCK];
            in.buffer().get(back);
            assertArrayEquals(before, back, "nothing written from the bad command");
        }
    }

    @Test
    void connectionLossEndsTheSessionAndFreesBuffers() throws Exception {
        ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL);
        ini.login();
        IserBuffer[] bufs = new IserBuffer[16];
        for (int i = 0; i < bufs.length; i++) {
            bufs[i] = ini.buffer(8 * BLOCK);
            ini.read(ScriptedInitiator.read10(i * 8, 8), 8 * BLOCK, bufs[i]);
        }
        ini.close();
        await(() -> runtime.sessions().isEmpty(), "session ended with its connection");
        for (IserBuffer b : bufs) {
            b.close();
        }
        await(() -> transport.buffersInUse() == 0, "every task's buffer returned");
    }

    @Test
    void responsesInvalidateTheInitiatorsStag() throws Exception {
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login();
            ini.buffer(BLOCK); // not advertised: stays
            IserBuffer in = ini.buffer(BLOCK);
            ini.read(ScriptedInitiator.read10(0, 1), BLOCK, in);
            assertEquals(ScsiResponse.GOOD, ini.next(ScsiResponse.class).status());
            await(() -> transport.buffersInUse() == 1, "the read STag invalidated by SEND_WITH_INV");
        }
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within 5 s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
