package org.jrdma.ulp.ipoib.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.testsupport.FuzzArgs;
import org.jrdma.testsupport.FuzzWatch;
import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.OperState;
import org.jrdma.ulp.ipoib.impl.IpoibClient;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: argument vectors for {@code ip} (link, addr, neigh, link set: iproute2's prefixes, options, address
 * and prefix parsing) against ib0 and ib1, up on two devices of a managed fabric. Input: a control byte
 * (ignored), then the arguments separated by NUL. Per input: a status, with words on stderr or stdout when it
 * is not 0; nothing thrown, nothing logged at WARNING with an exception, no thread dies. After each input the
 * interfaces are put back (addresses the input added deleted, both up) so inputs do not pile state up.
 * {@link #ping}: ping's and cm's argument vectors (see there).
 */
class IpArgsFuzzTest {
    private static ManagedIbFabric ib;
    private static IpoibClient client;
    private static FuzzWatch watch;

    @FuzzTest(maxDuration = "60s")
    void args(byte[] data) throws Exception {
        if (ib == null) {
            watch = new FuzzWatch();
            ib = new ManagedIbFabric();
            client = ToolRun.twoInterfacesUp(ib);
        }
        String[] args = FuzzArgs.split(data, 16);
        ToolRun r = ToolRun.of((out, err) -> new Ip(client, out, err).main(args));
        if (r.status() != 0) {
            assertFalse(r.out().isEmpty() && r.err().isEmpty(), () -> "status " + r.status() + " and not a word: "
                    + String.join(" ", args));
        }
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "failures: " + failed);
        restore();
    }

    /**
     * {@code ping} (iputils' options: -c, -i, -W, -s, -I, -4/-6, the destination) from ib0 (10.0.0.1) to ib1
     * (10.0.0.2), or, by the control byte modulo 3, {@code cm [DEV]} or {@code ipoib [show | attach IF tun NAME
     * [netns NS] [addr A/P]... | detach NAME]} (its attach refused before any TUN device is made). A ping still running after 300 ms gets Ctrl-C (an
     * interrupt) and must end within 5 s; a status other than 0 says something; nothing thrown, no thread died.
     */
    @FuzzTest(maxDuration = "60s")
    void ping(byte[] data) throws Exception {
        if (ib == null) {
            watch = new FuzzWatch();
            ib = new ManagedIbFabric();
            client = ToolRun.twoInterfacesUp(ib);
        }
        ip("addr", "add", "10.0.0.1/24", "dev", "ib0");
        ip("addr", "add", "10.0.0.2/24", "dev", "ib1");
        String[] args = FuzzArgs.split(data, 16);
        int tool = FuzzArgs.control(data) % 3;
        ToolRun[] r = new ToolRun[1];
        Thread t = new Thread(() -> r[0] = ToolRun.of((out, err) -> switch (tool) {
            case 0 -> new Ping(client, out, err).main(args);
            case 1 -> CmView.main(client, args, out, err);
            default -> new IpoibTool(NO_TUN, out, err).main(args);
        }), "fuzz ping");
        t.start();
        t.join(300);
        t.interrupt();
        t.join(5000);
        assertFalse(t.isAlive(), () -> "still running 5 s after Ctrl-C: " + String.join(" ", args));
        assertTrue(r[0] != null, "no status (the run threw)");
        if (r[0].status() != 0) {
            assertFalse(r[0].out().isEmpty() && r[0].err().isEmpty(), () -> "status " + r[0].status()
                    + " and not a word: " + String.join(" ", args));
        }
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "failures: " + failed);
        restore();
    }

    /** TUN attachments that parse and check everything but make no TUN device on the fuzzing host. */
    private static final org.jrdma.ulp.ipoib.tun.TunAttachments NO_TUN = new org.jrdma.ulp.ipoib.tun.TunAttachments() {
        @Override
        public Attachment attach(String ifName, String tunName, String netns, List<IfAddress> addresses) {
            throw new IllegalStateException("no TUN devices while fuzzing (" + ifName + " -> " + tunName + ")");
        }
    };

    /** Deletes every address and brings both interfaces up, through ip itself (what a test script would do). */
    private static void restore() throws InterruptedException {
        for (IpoibInterface i : client.list()) {
            for (IfAddress a : List.copyOf(i.addresses())) {
                ip("addr", "del", a.address().getHostAddress() + "/" + a.prefix(), "dev", i.name());
            }
            if (i.state() != OperState.UP) {
                ip("link", "set", "dev", i.name(), "up");
            }
        }
        assertEquals(2, client.list().size(), "ib0 and ib1 are still there");
    }

    private static void ip(String... args) {
        ToolRun r = ToolRun.of((out, err) -> new Ip(client, out, err).main(args));
        assertEquals(0, r.status(), () -> "ip " + String.join(" ", args) + ": " + r.err());
    }

    @AfterAll
    static void stop() {
        if (ib != null) {
            ib.core().unregisterClient(client);
            ib.close();
            ib = null;
            watch.close();
        }
    }
}
