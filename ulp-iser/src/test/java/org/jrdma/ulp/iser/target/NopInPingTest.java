package org.jrdma.ulp.iser.target;

import static org.jrdma.ulp.iser.target.IserTargetRuntimeTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.login.TargetLogins;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.NopIn;
import org.jrdma.ulp.iser.pdu.NopOut;
import org.jrdma.ulp.iser.pdu.Reject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The target's NOP-In pings on an idle connection: answered, the session stays; unanswered, it is dropped. */
class NopInPingTest {
    MemoryTransport transport;
    IserTargetRuntime runtime;

    @BeforeEach
    void start() {
        transport = new MemoryTransport();
        runtime = new IserTargetRuntime(transport, new TestDirectory().add(ScriptedInitiator.TARGET, 1 << 20),
                TargetLogins::create, CmdSnWindow.DEFAULT_WINDOW, Duration.ofMillis(150), Duration.ofMillis(400));
        runtime.enable(TestDirectory.PORTAL);
    }

    @AfterEach
    void stop() {
        runtime.close();
        transport.close();
    }

    @Test
    void answeredPingsKeepTheConnectionAndAnUnansweredOneDropsIt() throws Exception {
        ScriptedInitiator ini = new ScriptedInitiator(transport, TestDirectory.PORTAL);
        ini.login();
        int lastTtt = Reject.RESERVED_TAG;
        for (int i = 0; i < 3; i++) {
            NopIn ping = ini.next(NopIn.class);
            assertEquals(Reject.RESERVED_TAG, ping.itt(), "an unsolicited NOP-In");
            assertNotEquals(Reject.RESERVED_TAG, ping.ttt());
            assertNotEquals(lastTtt, ping.ttt(), "a new TTT per ping");
            assertEquals(ini.loginStatSn + 1, ping.sn().statSn(), "the current StatSN, not advanced");
            lastTtt = ping.ttt();
            ini.send(new NopOut(true, 0, Reject.RESERVED_TAG, ping.ttt(), new InitiatorSn(ini.cmdSn, 0)));
        }
        assertEquals(0, runtime.counters().get(TargetCounter.NOP_IN_TIMEOUTS));
        assertEquals(1, runtime.sessions().size());

        ini.next(NopIn.class); // not answered
        ini.awaitDisconnect();
        await(() -> runtime.sessions().isEmpty(), "the session ends with the dropped connection");
        assertEquals(1, runtime.counters().get(TargetCounter.NOP_IN_TIMEOUTS));
    }
}
