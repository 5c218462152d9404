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
