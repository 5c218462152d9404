package org.jrdma.ulp.iser.target;

import static org.jrdma.ulp.iser.target.IserTargetRuntimeTest.await;
import static org.jrdma.ulp.iser.target.ScriptedInitiator.BLOCK;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.pdu.DataOut;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiOpcode;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.LogoutReason;
import org.jrdma.ulp.iser.pdu.LogoutRequest;
import org.jrdma.ulp.iser.pdu.LogoutResponse;
import org.jrdma.ulp.iser.pdu.NopIn;
import org.jrdma.ulp.iser.pdu.NopOut;
import org.jrdma.ulp.iser.pdu.OtherHeader;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.RejectReason;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.pdu.TaskMgmtRequest;
import org.jrdma.ulp.iser.pdu.TaskMgmtResponse;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.jrdma.ulp.iser.pdu.TextRequest;
import org.jrdma.ulp.iser.pdu.TextResponse;
import org.jrdma.ulp.iser.pdu.TmfFunction;
import org.jrdma.ulp.iser.pdu.TmfResponse;
import org.jrdma.ulp.iser.scsi.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** NOP, Logout, task management, Reject, discovery, several sessions and reinstatement. */
class TargetControlTest {
    static final String SLOW = "iqn.2026-12.org.jrdma:slow";
    static final int NO_TAG = 0xffffffff;

    MemoryTransport transport;
    IserTargetRuntime runtime;
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch entered = new CountDownLatch(1);

    @BeforeEach
    void start() {
        transport = new MemoryTransport();
        TestDirectory directory = new TestDirectory().add(ScriptedInitiator.TARGET, 1 << 20).add(SLOW, task -> {
            entered.countDown();
            try {
                release.await(5, TimeUnit.SECONDS); // a backstore that blocks, as fileio may
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ScsiResult.good(0);
        });
        runtime = TargetFixture.runtime(transport, directory);
    }

    @AfterEach
    void stop() {
        release.countDown();
        runtime.close();
        transport.close();
    }

    ScriptedInitiator loggedIn(String target, long isid) throws Exception {
        ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL);
        assertEquals(LoginStatus.SUCCESS, ini.login(ScriptedInitiator.INITIATOR, target, isid, 0).status());
        return ini;
    }

    @Test
    void nopOutPingIsEchoedAndAnAnswerToATargetPingIsNot() throws Exception {
        try (ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1)) {
            byte[] ping = "ping data".getBytes(StandardCharsets.US_ASCII);
            ini.send(IserHeader.CONTROL, new NopOut(true, 0, 0x77, NO_TAG, new InitiatorSn(ini.cmdSn, 0)), ping);
            IserPdu pdu = ini.next();
            NopIn in = (NopIn) pdu.pdu().header();
            assertEquals(0x77, in.itt());
            assertEquals(NO_TAG, in.ttt());
            assertEquals(ini.loginStatSn + 1, in.sn().statSn());
            assertArrayEquals(ping, pdu.pdu().data());
            ini.send(new NopOut(true, 0, NO_TAG, 0x1234, new InitiatorSn(ini.cmdSn, 0)));
            ini.expectSilence(200);
        }
    }

    @Test
    void logoutClosesTheSessionAfterItsResponse() throws Exception {
        ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1);
        ini.send(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, 0x99, 0, new InitiatorSn(ini.cmdSn, 0)));
        LogoutResponse rsp = ini.next(LogoutResponse.class);
        assertEquals(0, rsp.response());
        assertEquals(0x99, rsp.itt());
        ini.awaitDisconnect();
        await(() -> runtime.sessions().isEmpty(), "session gone after logout");
    }

    @Test
    void logoutForRecoveryIsNotSupportedAtErl0() throws Exception {
        try (ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1)) {
            ini.send(new LogoutRequest(true, LogoutReason.RECOVERY, 0x98, 0, new InitiatorSn(ini.cmdSn, 0)));
            assertEquals(2, ini.next(LogoutResponse.class).response());
            assertEquals(1, runtime.sessions().size());
        }
    }

    @Test
    void abortTaskOfACommandInProgressAndOfAnUnknownOne() throws Exception {
        try (ScriptedInitiator ini = loggedIn(SLOW, 1)) {
            IserBuffer buf = ini.buffer(BLOCK);
            ScsiCommand slow = ini.read(ScriptedInitiator.read10(0, 1), BLOCK, buf);
            assertTrue(entered.await(5, TimeUnit.SECONDS));
            ini.send(tmf(ini, TmfFunction.ABORT_TASK, slow.itt()));
            TaskMgmtResponse rsp = ini.next(TaskMgmtResponse.class);
            assertEquals(TmfResponse.COMPLETE, rsp.response());
            release.countDown();
            ini.expectSilence(300); // an aborted task sends no SCSI Response
            await(() -> transport.buffersInUse() == 1, "the aborted task's buffer freed, the initiator's kept");
            assertEquals(1, runtime.counters().get(TargetCounter.ABORTED));

            ini.send(tmf(ini, TmfFunction.ABORT_TASK, 0x4242));
            assertEquals(TmfResponse.NO_TASK, ini.next(TaskMgmtResponse.class).response());
        }
    }

    @Test
    void aBlockedBackstoreDoesNotStopTheConnectionAndLunResetAbortsIt() throws Exception {
        try (ScriptedInitiator ini = loggedIn(SLOW, 1)) {
            IserBuffer buf = ini.buffer(BLOCK);
            ini.read(ScriptedInitiator.read10(0, 1), BLOCK, buf);
            assertTrue(entered.await(5, TimeUnit.SECONDS));
            ini.send(IserHeader.CONTROL, new NopOut(true, 0, 0x66, NO_TAG, new InitiatorSn(ini.cmdSn, 0)), new byte[0]);
            assertEquals(0x66, ini.next(NopIn.class).itt(), "CDBs run on workers, not the completion thread");
            ini.send(tmf(ini, TmfFunction.LOGICAL_UNIT_RESET, NO_TAG));
            assertEquals(TmfResponse.COMPLETE, ini.next(TaskMgmtResponse.class).response());
            release.countDown();
            ini.expectSilence(300);
            await(() -> transport.buffersInUse() == 1, "the reset task's buffer freed");
        }
    }

    @Test
    void immediateDataWithoutTheWriteBitIsRejected() throws Exception {
        try (ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1)) {
            ScsiCommand c = ini.command(false, false, 0, new byte[6]);
            ini.send(IserHeader.CONTROL, c, new byte[BLOCK]);
            IserPdu pdu = ini.next();
            assertEquals(RejectReason.PROTOCOL_ERROR, ((Reject) pdu.pdu().header()).reason());
            assertEquals(c.itt(), java.nio.ByteBuffer.wrap(pdu.pdu().data()).getInt(16), "the rejected BHS's ITT");
        }
    }

    @Test
    void lunResetWarmResetAndUnsupportedFunctions() throws Exception {
        try (ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1);
             ScriptedInitiator other = loggedIn(ScriptedInitiator.TARGET, 2)) {
            ini.send(tmf(ini, TmfFunction.LOGICAL_UNIT_RESET, NO_TAG));
            assertEquals(TmfResponse.COMPLETE, ini.next(TaskMgmtResponse.class).response());
            ini.send(tmf(ini, TmfFunction.CLEAR_ACA, NO_TAG));
            assertEquals(TmfResponse.NOT_SUPPORTED, ini.next(TaskMgmtResponse.class).response());
            ini.send(tmf(ini, TmfFunction.TASK_REASSIGN, NO_TAG));
            assertEquals(TmfResponse.NOT_SUPPORTED, ini.next(TaskMgmtResponse.class).response());
            assertEquals(2, runtime.sessions().size());
            ini.send(tmf(ini, TmfFunction.TARGET_WARM_RESET, NO_TAG));
            assertEquals(TmfResponse.COMPLETE, ini.next(TaskMgmtResponse.class).response());
            other.awaitDisconnect(); // as LIO: the other sessions to the target are closed
            await(() -> runtime.sessions().size() == 1, "only the resetting session left");
            assertEquals(4, runtime.counters().get(TargetCounter.TASK_MANAGEMENT));
        }
    }

    private static TaskMgmtRequest tmf(ScriptedInitiator ini, TmfFunction f, int referenced) {
        return new TaskMgmtRequest(true, f, 0, ini.itt++, referenced, new InitiatorSn(ini.cmdSn, 0), ini.cmdSn, 0);
    }

    @Test
    void dataOutSnackAndAnUnknownOpcodeGetRejects() throws Exception {
        try (ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1)) {
            ini.send(IserHeader.CONTROL, new DataOut(true, 0, 0x55, NO_TAG, 0, 0, 0), new byte[BLOCK]);
            IserPdu pdu = ini.next();
            Reject r = (Reject) pdu.pdu().header();
            assertEquals(RejectReason.PROTOCOL_ERROR, r.reason());
            assertEquals(ini.loginStatSn + 1, r.sn().statSn());
            assertEquals(IscsiOpcode.SCSI_DATA_OUT.value(), pdu.pdu().data()[0] & 0x3f, "the rejected BHS");

            byte[] snack = new byte[48];
            snack[0] = 0x10;
            ini.send(new OtherHeader(IscsiOpcode.SNACK, snack));
            assertEquals(RejectReason.PROTOCOL_ERROR, ini.next(Reject.class).reason());

            byte[] vendor = new byte[48];
            vendor[0] = 0x1c; // a vendor-specific opcode: does not decode
            ini.send(new OtherHeader(IscsiOpcode.SNACK, vendor));
            assertEquals(RejectReason.CMD_NOT_SUPPORTED, ini.next(Reject.class).reason());
            assertEquals(1, runtime.counters().get(TargetCounter.MALFORMED));
            assertEquals(3, runtime.counters().get(TargetCounter.REJECTS));

            IserBuffer buf = ini.buffer(8);
            ini.read(ScriptedInitiator.readCapacity10(), 8, buf);
            ScsiResponse ok = ini.next(ScsiResponse.class);
            assertEquals(ScsiResponse.GOOD, ok.status(), "the session goes on after rejects");
            assertEquals(ini.loginStatSn + 4, ok.sn().statSn());
        }
    }

    @Test
    void discoverySessionAnswersSendTargetsAndRejectsScsi() throws Exception {
        ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL);
        LoginResponse login = ini.login(ScriptedInitiator.INITIATOR, null, 3, 0);
        assertEquals(LoginStatus.SUCCESS, login.status());
        assertTrue(runtime.sessions().get(0).discovery());
        ini.send(IserHeader.CONTROL, new TextRequest(true, true, false, 0, 0x31, NO_TAG,
                new InitiatorSn(ini.cmdSn, 0)), TextKeys.of("SendTargets", "All").encode());
        IserPdu pdu = ini.next();
        TextResponse t = (TextResponse) pdu.pdu().header();
        assertEquals(0x31, t.itt());
        assertTrue(t.fin());
        TextKeys keys = TextKeys.decode(pdu.pdu().data());
        assertEquals(List.of(SLOW, ScriptedInitiator.TARGET), keys.all("TargetName"));
        assertEquals(List.of("192.0.2.1:3260,1", "192.0.2.1:3260,1"), keys.all("TargetAddress"));

        ini.noData(new byte[6]);
        assertEquals(RejectReason.PROTOCOL_ERROR, ini.next(Reject.class).reason());
        ini.send(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, 0x32, 0, new InitiatorSn(ini.cmdSn, 0)));
        assertEquals(0, ini.next(LogoutResponse.class).response());
        ini.awaitDisconnect();
    }

    @Test
    void aLongSendTargetsAnswerComesInPieces() throws Exception {
        TestDirectory many = new TestDirectory();
        for (int i = 0; i < 200; i++) {
            many.add(String.format("iqn.2026-12.org.jrdma:a-rather-long-target-name-to-fill-pdus-%03d", i), 4096);
        }
        runtime.close();
        runtime = TargetFixture.runtime(transport, many);
        try (ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            ini.login(ScriptedInitiator.INITIATOR, null, 3, 0);
            ini.send(IserHeader.CONTROL, new TextRequest(true, true, false, 0, 0x31, NO_TAG,
                    new InitiatorSn(ini.cmdSn, 0)), TextKeys.of("SendTargets", "All").encode());
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            int pieces = 0;
            while (true) {
                IserPdu pdu = ini.next();
                TextResponse t = (TextResponse) pdu.pdu().header();
                assertTrue(pdu.pdu().data().length <= 8192, "no piece over the initiator's 8 KiB");
                all.write(pdu.pdu().data());
                pieces++;
                if (t.fin()) {
                    assertEquals(NO_TAG, t.ttt());
                    break;
                }
                assertTrue(t.cont());
                ini.send(new TextRequest(true, true, false, 0, 0x31, t.ttt(), new InitiatorSn(ini.cmdSn, 0)));
            }
            assertTrue(pieces > 1, pieces + " pieces");
            TextKeys keys = TextKeys.decode(all.toByteArray());
            assertEquals(200, keys.all("TargetName").size());
            assertEquals(200, keys.all("TargetAddress").size());
        }
    }

    @Test
    void sendTargetsByNameInAFullFeatureSessionAndARequestSplitOverPdus() throws Exception {
        try (ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1)) {
            byte[] keys = TextKeys.of("SendTargets", ScriptedInitiator.TARGET, "X-foo", "1").encode();
            int half = keys.length / 2;
            ini.send(IserHeader.CONTROL, new TextRequest(false, false, true, 0, 0x41, NO_TAG,
                    new InitiatorSn(ini.cmdSn++, 0)), java.util.Arrays.copyOf(keys, half));
            TextResponse part = ini.next(TextResponse.class);
            assertTrue(!part.fin() && !part.cont(), "an empty answer to a C=1 part");
            ini.send(IserHeader.CONTROL, new TextRequest(false, true, false, 0, 0x41, part.ttt(),
                    new InitiatorSn(ini.cmdSn++, 0)), java.util.Arrays.copyOfRange(keys, half, keys.length));
            IserPdu pdu = ini.next();
            TextResponse t = (TextResponse) pdu.pdu().header();
            assertTrue(t.fin());
            assertEquals(ini.loginStatSn + 2, t.sn().statSn());
            TextKeys answer = TextKeys.decode(pdu.pdu().data());
            assertEquals(List.of(ScriptedInitiator.TARGET), answer.all("TargetName"), "only the one named");
            assertEquals(List.of("NotUnderstood"), answer.all("X-foo"));
        }
    }

    @Test
    void severalSessionsAndReinstatementBySameIsid() throws Exception {
        ScriptedInitiator first = loggedIn(ScriptedInitiator.TARGET, 7);
        try (ScriptedInitiator other = loggedIn(ScriptedInitiator.TARGET, 8);
             ScriptedInitiator again = new ScriptedInitiator(transport, TestDirectory.PORTAL)) {
            int oldTsih = runtime.sessions().get(0).tsih();
            assertEquals(2, runtime.sessions().size());
            LoginResponse rsp = again.login(ScriptedInitiator.INITIATOR, ScriptedInitiator.TARGET, 7, 0);
            assertEquals(LoginStatus.SUCCESS, rsp.status());
            first.awaitDisconnect(); // ERL 0 session reinstatement closes the old session
            await(() -> runtime.sessions().size() == 2, "old session gone");
            assertTrue(runtime.sessions().stream().noneMatch(s -> s.tsih() == oldTsih));
            assertEquals(1, runtime.counters().get(TargetCounter.REINSTATEMENTS));

            IserBuffer buf = again.buffer(8);
            again.read(ScriptedInitiator.readCapacity10(), 8, buf);
            assertEquals(ScsiResponse.GOOD, again.next(ScsiResponse.class).status());
            IserBuffer buf2 = other.buffer(8);
            other.read(ScriptedInitiator.readCapacity10(), 8, buf2);
            assertEquals(ScsiResponse.GOOD, other.next(ScsiResponse.class).status(), "the other session goes on");
            assertNotEquals(rsp.tsih(), oldTsih);
        }
    }

    @Test
    void portalsEnableOnceDisableKeepsSessionsAndABusyAddressFails() throws Exception {
        runtime.enable(TestDirectory.PORTAL); // again: one listener per address
        assertEquals(java.util.Set.of(TestDirectory.PORTAL), runtime.portals());
        try (ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1)) {
            runtime.disable(TestDirectory.PORTAL);
            assertTrue(runtime.portals().isEmpty());
            assertTrue(transport.connect(TestDirectory.PORTAL, ini).toCompletableFuture().isCompletedExceptionally(),
                    "no listener after disable");
            IserBuffer buf = ini.buffer(8);
            ini.read(ScriptedInitiator.readCapacity10(), 8, buf);
            assertEquals(ScsiResponse.GOOD, ini.next(ScsiResponse.class).status(), "the session stays, as in LIO");
            transport.listen(TestDirectory.PORTAL, c -> { });
            org.junit.jupiter.api.Assertions.assertThrows(org.jrdma.ulp.iser.conn.IserTransportException.class,
                    () -> runtime.enable(TestDirectory.PORTAL), "EADDRINUSE");
            assertTrue(runtime.portals().isEmpty());
        }
    }

    @Test
    void closingTheRuntimeEndsSessionsAndStopsListening() throws Exception {
        ScriptedInitiator ini = loggedIn(ScriptedInitiator.TARGET, 1);
        runtime.close();
        ini.awaitDisconnect();
        assertTrue(runtime.sessions().isEmpty());
        assertTrue(runtime.portals().isEmpty());
        assertTrue(transport.connect(TestDirectory.PORTAL, ini).toCompletableFuture().isCompletedExceptionally());
    }
}
