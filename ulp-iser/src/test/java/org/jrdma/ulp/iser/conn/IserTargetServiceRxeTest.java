package org.jrdma.ulp.iser.conn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.shell.Targetcli;
import org.jrdma.ulp.iser.target.IserTargetService;
import org.jrdma.ulp.iser.target.ScriptedInitiator;
import org.jrdma.ulp.iser.target.TargetTree;
import org.junit.jupiter.api.Test;

/**
 * The bundle's wiring over two hw-rxe devices: targetcli sets a target up, the service's runtime listens on
 * the iSER portal, an initiator writes and reads back through the ramdisk LUN; deactivation closes the session,
 * the listener and every thread.
 */
class IserTargetServiceRxeTest {
    static final String T1 = ScriptedInitiator.TARGET;

    private static void targetcli(TargetTree tree, String line) {
        StringBuilder err = new StringBuilder();
        int status = Targetcli.run(tree, new PrintStream(new ByteArrayOutputStream()), err, line.split(" "));
        assertEquals("", err.toString(), line);
        assertEquals(0, status, line);
    }

    private static Set<String> iserThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("iser-")).collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void targetcliSetupServesAndDeactivationCleansUp() throws Exception {
        Set<String> before = iserThreads();
        try (RxeIserFabric fabric = new RxeIserFabric()) {
            InetSocketAddress portal = fabric.portal(IserTransport.ISCSI_PORT);
            String ip = portal.getAddress().getHostAddress();
            TargetTree tree = new TargetTree();
            IserTargetService service = IserTargetService.start(fabric.cm(), tree);
            for (String line : List.of("/backstores/ramdisk create rd0 16M", "/iscsi create " + T1,
                    "/iscsi/" + T1 + "/tpg1/luns create /backstores/ramdisk/rd0",
                    "/iscsi/" + T1 + "/tpg1/portals create " + ip + " 3260",
                    "/iscsi/" + T1 + "/tpg1/portals/" + ip + ":3260 enable_iser true")) {
                targetcli(tree, line);
            }
            assertEquals(Set.of(portal), service.runtime().portals());

            RdmaIserTransport initiatorTransport = new RdmaIserTransport(fabric.cm(),
                    fabric.initiatorConfig(IserConnectionConfig.ofQueueDepth(8)));
            ScriptedInitiator ini = new ScriptedInitiator(initiatorTransport, portal);
            assertEquals(LoginStatus.SUCCESS, ini.login().status());
            byte[] pattern = new byte[64 * 1024];
            new Random(14).nextBytes(pattern);
            IserBuffer out = ini.buffer(pattern.length);
            out.buffer().put(pattern);
            ini.write(ScriptedInitiator.write10(8, pattern.length / ScriptedInitiator.BLOCK), pattern.length, out, 8192);
            assertEquals(ScsiResponse.GOOD, ini.next(ScsiResponse.class).status());
            IserBuffer in = ini.buffer(pattern.length);
            ini.read(ScriptedInitiator.read10(8, pattern.length / ScriptedInitiator.BLOCK), pattern.length, in);
            assertEquals(ScsiResponse.GOOD, ini.next(ScsiResponse.class).status());
            byte[] back = new byte[pattern.length];
            in.buffer().get(back);
            assertArrayEquals(pattern, back, "through targetcli's ramdisk LUN");
            assertEquals(1, service.sessions().size());
            assertEquals(ScriptedInitiator.INITIATOR, service.sessions().get(0).initiatorName());

            service.close();
            service.close(); // once only
            ini.awaitDisconnect();
            assertTrue(tree.storageObject("ramdisk", "rd0").isPresent(), "the configuration stays");
            CompletionException refused = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> initiatorTransport.connect(portal, new Inbox()).toCompletableFuture().join());
            assertTrue(refused.getCause() instanceof IserTransportException, refused.toString());
            out.close();
            in.close();
            ini.close();
            initiatorTransport.close();
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!before.containsAll(iserThreads()) && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertEquals(before, iserThreads(), "no iSER thread left");
    }
}
