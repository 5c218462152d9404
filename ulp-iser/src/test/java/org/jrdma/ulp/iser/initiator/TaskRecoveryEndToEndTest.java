package org.jrdma.ulp.iser.initiator;

import static org.jrdma.ulp.iser.initiator.TestIo.await;
import static org.jrdma.ulp.iser.initiator.TestIo.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.TaskMgmtRequest;
import org.jrdma.ulp.iser.pdu.TaskMgmtResponse;
import org.jrdma.ulp.iser.pdu.TmfFunction;
import org.jrdma.ulp.iser.pdu.TmfResponse;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;
import org.jrdma.ulp.iser.scsi.ScsiLun;
import org.jrdma.ulp.iser.scsi.ScsiResult;
import org.jrdma.ulp.iser.scsi.ScsiTask;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.jrdma.ulp.iser.target.WindowedRuntimes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The initiator's error handler against the real target runtime: a command past sd's timeout gets ABORT TASK,
 * then LU RESET, then the connection is dropped, as open-iscsi under Linux's scsi_eh; the TMF PDUs and the
 * target's responses are checked on the wire ({@link TappedTransport}).
 */
class TaskRecoveryEndToEndTest {
    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);
    static final long LBA = 1000;
    final MemoryTransport memory = new MemoryTransport();
    final TappedTransport tap = new TappedTransport(memory);
    /** The first READ at {@link #LBA} hangs in the LUN (a stuck backstore) until the test ends. */
    final CountDownLatch unstick = new CountDownLatch(1);
    final AtomicInteger stalls = new AtomicInteger();
    final LunTable luns = new LunTable(new TreeMap<>(java.util.Map.of(0,
            new ScsiLun(new RamdiskBackstore("rd0", 64L << 20), false))));
    final ScsiExecutor stalling = new ScsiExecutor() {
        @Override
        public ScsiResult execute(ScsiTask task) {
            if (isReadAt(task.cdb(), LBA) && stalls.getAndIncrement() == 0) {
                try {
                    unstick.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return luns.execute(task);
        }

        @Override
        public void lunReset(long lun) {
            luns.lunReset(lun);
        }
    };
    final IserTargetRuntime target = WindowedRuntimes.create(memory,
            new InitiatorTargetEndToEndTest.Directory(stalling), 128);
    final IserInitiatorService initiator = new IserInitiatorService(tap, "iqn.2026-12.org.jrdma:01:eh");

    @AfterEach
    void tearDown() {
        unstick.countDown();
        initiator.close();
        target.close();
        memory.close();
    }

    static boolean isReadAt(byte[] cdb, long lba) {
        return (cdb[0] & 0xff) == 0x88 && ByteBuffer.wrap(cdb).getLong(2) == lba;
    }

    InitiatorSession loginAndWrite(byte[] data) throws Exception {
        target.enable(InitiatorTargetEndToEndTest.PORTAL);
        IserSession s = initiator.login(InitiatorTargetEndToEndTest.PORTAL, InitiatorTargetEndToEndTest.IQN,
                IserSessionOptions.defaults().withCommandTimeout(COMMAND_TIMEOUT)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        await(s.write(0, LBA, data.length / 512, ByteBuffer.wrap(data)));
        return (InitiatorSession) s;
    }

    List<ScsiCommand> readsAtLba() {
        return TappedTransport.of(tap.sent(), ScsiCommand.class).stream().filter(c -> isReadAt(c.cdb(), LBA)).toList();
    }

    /** The READ hangs in the LUN: ABORT TASK for it, FUNCTION COMPLETE, the READ again, byte-exact, same session. */
    @Test
    void abortTaskEndsTheHungCommandWhichIsReissued() throws Exception {
        byte[] data = pattern(65536, 1);
        InitiatorSession s = loginAndWrite(data);
        int tsih = target.sessions().get(0).tsih();
        ByteBuffer back = ByteBuffer.allocate(data.length);
        await(s.read(0, LBA, data.length / 512, back));
        assertArrayEquals(data, back.array());

        List<ScsiCommand> reads = readsAtLba();
        assertEquals(2, reads.size(), "the READ and its re-issue");
        assertNotEquals(reads.get(0).itt(), reads.get(1).itt());
        assertTrue(reads.get(1).sn().cmdSn() - reads.get(0).sn().cmdSn() > 0, "the re-issue has a new CmdSN");
        List<TaskMgmtRequest> tmfs = TappedTransport.of(tap.sent(), TaskMgmtRequest.class);
        assertEquals(1, tmfs.size(), "one TMF: " + tmfs);
        TaskMgmtRequest abort = tmfs.get(0);
        assertEquals(TmfFunction.ABORT_TASK, abort.function());
        assertTrue(abort.immediate());
        assertEquals(reads.get(0).itt(), abort.referencedTaskTag());
        assertEquals(reads.get(0).sn().cmdSn(), abort.refCmdSn());
        assertEquals(reads.get(0).lun(), abort.lun());
        assertEquals(List.of(TmfResponse.COMPLETE), responsesTo(abort));
        assertEquals(tsih, target.sessions().get(0).tsih(), "no reinstatement");
        assertEquals(0, s.reinstatements.get());
        assertEquals(1, s.commandTimeouts());
        assertEquals(0, s.recovery.count(TaskRecovery.Step.LUN_RESET));
    }

    /**
     * The READ is lost on the way (the target never had it): ABORT TASK names its CmdSN, which the target counts
     * as received (RFC 7143 11.5.1 b), FUNCTION COMPLETE; the re-issued READ is not held behind the gap.
     */
    @Test
    void aLostCommandIsAbortedByItsCmdSnAndReissued() throws Exception {
        byte[] data = pattern(65536, 2);
        InitiatorSession s = loginAndWrite(data);
        stalls.set(1); // the LUN does not hang: the command never reaches it
        AtomicInteger lost = new AtomicInteger();
        tap.swallow = h -> h instanceof ScsiCommand c && isReadAt(c.cdb(), LBA) && lost.getAndIncrement() == 0;
        ByteBuffer back = ByteBuffer.allocate(data.length);
        await(s.read(0, LBA, data.length / 512, back));
        assertArrayEquals(data, back.array());

        ScsiCommand gone = TappedTransport.of(tap.swallowed(), ScsiCommand.class).get(0);
        List<TaskMgmtRequest> tmfs = TappedTransport.of(tap.sent(), TaskMgmtRequest.class);
        assertEquals(1, tmfs.size(), "one TMF: " + tmfs);
        assertEquals(gone.sn().cmdSn(), tmfs.get(0).refCmdSn());
        assertEquals(gone.itt(), tmfs.get(0).referencedTaskTag());
        assertEquals(List.of(TmfResponse.COMPLETE), responsesTo(tmfs.get(0)));
        assertEquals(1, readsAtLba().size(), "only the re-issue reached the wire");
        await(s.write(0, 0, 8, ByteBuffer.wrap(pattern(4096, 4)))); // the window flows on
        assertEquals(0, s.reinstatements.get());
    }

    /** The READ hangs and the ABORT TASK is lost: after abort_timeout, LU RESET; the READ again, byte-exact. */
    @Test
    void anUnansweredAbortEscalatesToLunReset() throws Exception {
        byte[] data = pattern(65536, 5);
        InitiatorSession s = loginAndWrite(data);
        AtomicInteger lost = new AtomicInteger();
        tap.swallow = h -> h instanceof TaskMgmtRequest && lost.getAndIncrement() == 0;
        ByteBuffer back = ByteBuffer.allocate(data.length);
        await(s.read(0, LBA, data.length / 512, back));
        assertArrayEquals(data, back.array());

        assertEquals(List.of(TmfFunction.ABORT_TASK), TappedTransport.of(tap.swallowed(), TaskMgmtRequest.class)
                .stream().map(TaskMgmtRequest::function).toList());
        List<TaskMgmtRequest> tmfs = TappedTransport.of(tap.sent(), TaskMgmtRequest.class);
        assertEquals(1, tmfs.size(), "then one LU RESET: " + tmfs);
        TaskMgmtRequest reset = tmfs.get(0);
        assertEquals(TmfFunction.LOGICAL_UNIT_RESET, reset.function());
        assertEquals(0xffffffff, reset.referencedTaskTag());
        assertEquals(0L, reset.lun());
        assertEquals(List.of(TmfResponse.COMPLETE), responsesTo(reset));
        assertEquals(2, readsAtLba().size(), "the hung READ and its re-issue");
        assertEquals(0, s.reinstatements.get());
        assertEquals(0, s.recovery.count(TaskRecovery.Step.DROP_CONNECTION));
    }

    /** The READ hangs and no TMF reaches the target: both time out, the connection is dropped, the READ re-issued. */
    @Test
    void unansweredTaskManagementDropsTheConnection() throws Exception {
        byte[] data = pattern(65536, 3);
        InitiatorSession s = loginAndWrite(data);
        tap.swallow = h -> h instanceof TaskMgmtRequest;
        ByteBuffer back = ByteBuffer.allocate(data.length);
        await(s.read(0, LBA, data.length / 512, back));
        assertArrayEquals(data, back.array());

        assertEquals(List.of(TmfFunction.ABORT_TASK, TmfFunction.LOGICAL_UNIT_RESET),
                TappedTransport.of(tap.swallowed(), TaskMgmtRequest.class).stream()
                        .map(TaskMgmtRequest::function).toList());
        assertEquals(1, s.recovery.count(TaskRecovery.Step.DROP_CONNECTION));
        assertEquals(1, s.reinstatements.get(), "the READ went again on a new connection");
        assertEquals(1, target.sessions().size());
    }

    private List<TmfResponse> responsesTo(TaskMgmtRequest req) {
        return TappedTransport.of(tap.received(), TaskMgmtResponse.class).stream().filter(r -> r.itt() == req.itt())
                .map(TaskMgmtResponse::response).toList();
    }
}
