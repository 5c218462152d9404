package org.jrdma.ulp.iser.conn;

import static org.jrdma.ulp.iser.target.ScriptedInitiator.BLOCK;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.jrdma.ulp.iser.target.ScriptedInitiator;
import org.jrdma.ulp.iser.target.TargetCounter;
import org.jrdma.ulp.iser.target.TestDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The target runtime over the real iSER transport: two hw-rxe devices, the RDMA CM, RDMA READ/WRITE against
 * the initiator's registered buffers (the path a Linux initiator takes, minus Linux).
 */
class IserTargetRxeTest {
    static final int MIB = 1 << 20;

    IserFabric fabric;
    RdmaIserTransport targetTransport;
    RdmaIserTransport initiatorTransport;
    IserTargetRuntime runtime;
    InetSocketAddress portal;

    @BeforeEach
    void up() {
        fabric = new RxeIserFabric();
        portal = fabric.portal(IserTransport.ISCSI_PORT);
        targetTransport = new RdmaIserTransport(fabric.cm(), IserConnectionConfig.defaults());
        initiatorTransport = new RdmaIserTransport(fabric.cm(),
                fabric.initiatorConfig(IserConnectionConfig.ofQueueDepth(32)));
        runtime = new IserTargetRuntime(targetTransport,
                new TestDirectory(portal).add(ScriptedInitiator.TARGET, 16 * MIB));
        runtime.enable(portal);
    }

    @AfterEach
    void down() {
        runtime.close();
        initiatorTransport.close();
        targetTransport.close();
        fabric.close();
    }

    @Test
    void writeOneMibWithImmediateDataAndReadItBack() throws Exception {
        byte[] pattern = new byte[MIB];
        new Random(14).nextBytes(pattern);
        try (ScriptedInitiator ini = new ScriptedInitiator(initiatorTransport, portal)) {
            assertEquals(LoginStatus.SUCCESS, ini.login().status());
            IserBuffer out = ini.buffer(MIB);
            out.buffer().put(pattern);
            ini.write(ScriptedInitiator.write10(64, MIB / BLOCK), MIB, out, 8192);
            assertEquals(ScsiResponse.GOOD, ini.next(ScsiResponse.class).status());
            IserBuffer in = ini.buffer(MIB);
            ini.read(ScriptedInitiator.read10(64, MIB / BLOCK), MIB, in);
            ScsiResponse r = ini.next(ScsiResponse.class);
            assertEquals(ScsiResponse.GOOD, r.status());
            assertEquals(ini.loginStatSn + 2, r.sn().statSn());
            byte[] back = new byte[MIB];
            in.buffer().get(back);
            assertArrayEquals(pattern, back, "1 MiB: 8 KiB immediate + RDMA READ, then RDMA WRITE back");
            out.close();
            in.close();
        }
    }

    @Test
    void thirtyTwoCommandsInFlight() throws Exception {
        try (ScriptedInitiator ini = new ScriptedInitiator(initiatorTransport, portal)) {
            ini.login();
            Set<Integer> itts = new HashSet<>();
            IserBuffer[] bufs = new IserBuffer[32];
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = ini.buffer(4096);
                ScsiCommand c = i % 2 == 0 ? ini.write(ScriptedInitiator.write10(i * 8, 8), 4096, bufs[i], 0)
                        : ini.read(ScriptedInitiator.read10(i * 8, 8), 4096, bufs[i]);
                itts.add(c.itt());
            }
            for (int i = 0; i < bufs.length; i++) {
                ScsiResponse r = ini.next(ScsiResponse.class);
                assertEquals(ScsiResponse.GOOD, r.status());
                assertTrue(itts.remove(r.itt()));
                assertEquals(ini.loginStatSn + 1 + i, r.sn().statSn());
            }
            for (IserBuffer b : bufs) {
                b.close();
            }
        }
    }

    @Test
    void aBadStagDropsTheConnectionAndTheSessionIsCleaned() throws Exception {
        ScriptedInitiator ini = new ScriptedInitiator(initiatorTransport, portal);
        ini.login();
        IserBuffer buf = ini.buffer(4096);
        IserBuffer forged = new ForgedStag(buf);
        ini.write(ScriptedInitiator.write10(0, 8), 4096, forged, 0);
        ini.awaitDisconnect();
        long end = System.nanoTime() + 10_000_000_000L;
        while (!runtime.sessions().isEmpty() && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertTrue(runtime.sessions().isEmpty(), "session cleaned after the remote access error");
        assertEquals(0, runtime.counters().get(TargetCounter.WRITE_BYTES));
        buf.close();
        ini.close();
    }

    /** The initiator's buffer advertised with an rkey no MR has: the target's RDMA READ fails. */
    private record ForgedStag(IserBuffer real) implements IserBuffer {
        @Override public java.nio.ByteBuffer buffer() { return real.buffer(); }
        @Override public int capacity() { return real.capacity(); }
        @Override public int lkey() { return real.lkey(); }
        @Override public int rkey() { return real.rkey() ^ 0x5a5a_5a00; }
        @Override public long va() { return real.va(); }
        @Override public void close() { }
    }
}
