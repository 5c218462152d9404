package org.jrdma.ib.cm.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.testsupport.ToolRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Two one-port hw-loopback devices ({@code 10.0.0.1} on the first, {@code 10.0.0.2} on the second)
 * under the {@link LoopbackRdmaCm}. After each test no CM id is left, {@code rdma res} is empty on both
 * devices, and unregistering them destroys nothing.
 */
abstract class RpingFixture {
    static final String CLIENT_IP = "10.0.0.1";
    static final String SERVER_IP = "10.0.0.2";

    IbCore core;
    LoopbackDevice lo0;
    LoopbackDevice lo1;
    IbDevice dev0;
    IbDevice dev1;
    LoopbackRdmaCm cm;

    @BeforeEach
    void setUp() throws Exception {
        core = IbCore.newInstance();
        lo0 = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 1, 0);
        lo1 = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 1, 0);
        dev0 = lo0.register(core.registrar()).device();
        dev1 = lo1.register(core.registrar()).device();
        cm = new LoopbackRdmaCm(Map.of(
                InetAddress.getByName(CLIENT_IP), new LoopbackRdmaCm.Endpoint(dev0, 1),
                InetAddress.getByName(SERVER_IP), new LoopbackRdmaCm.Endpoint(dev1, 1)));
    }

    @AfterEach
    void tearDown() {
        try {
            assertEquals(Set.of(), cm.openIds(), "CM ids left");
            List<ResourceInfo> left0 = dev0.resources();
            List<ResourceInfo> left1 = dev1.resources();
            assertEquals(List.of(), left0, "rdma res on " + dev0.name());
            assertEquals(List.of(), left1, "rdma res on " + dev1.name());
        } finally {
            cm.close();
            UnregisterReport r0 = lo0.close();
            UnregisterReport r1 = lo1.close();
            assertEquals(List.of(), r0.leaked());
            assertEquals(List.of(), r1.leaked());
        }
    }

    /** One rping run (one "process"): a {@link ToolRun} of {@link Rping}, stacks of the CM's threads on a timeout. */
    static final class Side extends ToolRun {
        Side(LoopbackRdmaCm cm, String name, String... args) {
            super(name, StandardCharsets.ISO_8859_1, (o, e) -> Rping.run(cm, o, e, args));
            dumpThreadsNamed("rping", "loopback");
            start();
        }
    }

    Side server(String... args) throws InterruptedException {
        Side s = new Side(cm, "rping-server", args);
        awaitListening(s, SERVER_IP, Rping.PORT);
        return s;
    }

    Side client(String... args) {
        return new Side(cm, "rping-client", args);
    }

    void awaitListening(Side s, String ip, int port) throws InterruptedException {
        InetSocketAddress a = new InetSocketAddress(ip, port);
        s.awaitUntil(() -> cm.listening(a), "server listening on " + a, 10);
    }

    /** What the Linux client puts in its start buffer for ping {@code ping} of {@code size} bytes, without the NUL. */
    static String pingString(int ping, int size) {
        StringBuilder sb = new StringBuilder("rdma-ping-" + ping + ": ");
        char c = (char) ('A' + ping % 58);
        while (sb.length() < size - 1) {
            sb.append(c);
            c = c == 'z' ? 'A' : (char) (c + 1);
        }
        sb.setLength(size - 1);
        return sb.toString();
    }
}
