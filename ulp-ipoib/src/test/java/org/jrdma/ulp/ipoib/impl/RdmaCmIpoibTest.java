package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.Packets.ip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.impl.IbCmIds;
import org.jrdma.ib.cm.impl.RdmaCmService;
import org.jrdma.ib.cm.tools.Rping;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.perftest.Perftest;
import org.jrdma.ulp.ipoib.Neighbour;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RDMA CM over IPoIB addresses (Linux's {@code addr.c} over ib_ipoib): an RDMA CM with the interfaces' resolver,
 * ib0 10.0.0.1/24 on the first device, ib1 10.0.0.2/24 on the second, the SA on the first. {@code rping} between the
 * two, {@code ib_write_bw -R}, and what each step resolves to.
 */
class RdmaCmIpoibTest extends TwoInterfaces {
    RdmaCmService cm;

    @BeforeEach
    void rdmaCm() {
        cm = new RdmaCmService(ib.core(), ib.mad(), ib.sa());
        cm.addAddrResolver(new IpoibAddrResolver(f.client));
    }

    @AfterEach
    void closeCm() {
        cm.close();
    }

    @Test
    void rpingBetweenIpoibAddressesVerifiesItsData() throws Exception {
        Run server = Run.start((o, e) -> Rping.run(cm, o, e, "-s", "-a", "10.0.0.1", "-C", "10", "-S", "4096", "-V", "-v"));
        IpoibFixture.await(() -> IbCmIds.listening(cm, Rping.PORT) || server.done.isDone(), "rping server listening");
        Run client = Run.start((o, e) -> Rping.run(cm, o, e, "-c", "-a", "10.0.0.1", "-C", "10", "-S", "4096", "-V", "-v"));
        assertEquals(0, client.status(), "client: " + client);
        assertEquals(0, server.status(), "server: " + server);
        assertTrue(client.out().contains("ping data: rdma-ping-0: "), client.out());
        assertTrue(client.out().contains("ping data: rdma-ping-9: "), client.out());
        Neighbour n = ib1.neighbours().stream().filter(x -> x.address().equals(ip("10.0.0.1"))).findFirst().orElseThrow();
        assertEquals(Neighbour.State.REACHABLE, n.state(), "the client on ib1 found 10.0.0.1 by ARP");
        IpoibFixture.await(() -> IbCmIds.rdmaIds(cm) == 0, "both rpings' ids destroyed");
    }

    /** perftest's {@code -R}: the side channel and the test QP both connect through the RDMA CM to 10.0.0.1. */
    @Test
    void writeBwOverRdmaCmBetweenIpoibAddresses() throws Exception {
        Perftest bw = Perftest.named("ib_write_bw");
        Run server = Run.start((o, e) -> bw.run(ib.core(), cm, o, e, "-R", "-n", "100", "-s", "8192"));
        IpoibFixture.await(() -> IbCmIds.listening(cm, 18515) || server.done.isDone(), "ib_write_bw server listening");
        Run client = Run.start((o, e) -> bw.run(ib.core(), cm, o, e, "-R", "-n", "100", "-s", "8192", "10.0.0.1"));
        assertEquals(0, client.status(), "client: " + client);
        assertEquals(0, server.status(), "server: " + server);
        assertTrue(client.out().contains("\n 8192       100 "), client.out());
        IpoibFixture.await(() -> IbCmIds.rdmaIds(cm) == 0, "both sides' ids destroyed");
    }

    @Test
    void addressAndRouteResolutionUseTheInterfacesAndTheSa() throws Exception {
        Events ev = new Events();
        RdmaCmId id = cm.createId(ev::add, RdmaPortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress(ip("10.0.0.1"), 7000), 5000);
        assertEquals(RdmaCmEventType.ADDR_RESOLVED, ev.next().type());
        assertEquals(b, id.device(), "from ib1, the route to 10.0.0.1");
        assertEquals(1, id.portNum());
        assertEquals(ip("10.0.0.2"), id.localAddr().getAddress());
        id.resolveRoute(5000);
        assertEquals(RdmaCmEventType.ROUTE_RESOLVED, ev.next().type(), "the SA's PathRecord ib1 -> ib0");
        id.close();

        RdmaCmId bound = cm.createId(ev::add, RdmaPortSpace.TCP);
        bound.bindAddr(new InetSocketAddress(ip("10.0.0.1"), 0));
        assertEquals(a, bound.device(), "ip addr add 10.0.0.1/24 dev ib0: ib0's device and port");
        bound.close();

        RdmaCmId nobody = cm.createId(ev::add, RdmaPortSpace.TCP);
        VerbsException e = assertThrows(VerbsException.class,
                () -> nobody.bindAddr(new InetSocketAddress(ip("10.0.0.77"), 0)));
        assertEquals(Errno.EADDRNOTAVAIL, e.errno());
        nobody.resolveAddr(null, new InetSocketAddress(ip("10.0.0.99"), 7000), 300);
        RdmaCmEvent err = ev.next();
        assertEquals(RdmaCmEventType.ADDR_ERROR, err.type());
        assertEquals(-Errno.ETIMEDOUT.value(), err.status(), "no ARP answer: -ETIMEDOUT as Linux");
        nobody.close();
    }

    /** The events of the ids of one test, in order. */
    static final class Events {
        private final BlockingQueue<RdmaCmEvent> q = new LinkedBlockingQueue<>();

        int add(RdmaCmId id, RdmaCmEvent e) {
            q.add(e);
            return 0;
        }

        RdmaCmEvent next() throws InterruptedException {
            RdmaCmEvent e = q.poll(IpoibFixture.WAIT_MS, TimeUnit.MILLISECONDS);
            assertNotNull(e, "an RDMA CM event");
            return e;
        }
    }

    /** A tool's main: its exit status. */
    interface Tool {
        int run(PrintStream out, PrintStream err);
    }

    /** One tool run on its own thread, its output kept. */
    record Run(CompletableFuture<Integer> done, ByteArrayOutputStream o, ByteArrayOutputStream e) {
        static Run start(Tool tool) {
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(o, true, StandardCharsets.ISO_8859_1);
            PrintStream err = new PrintStream(e, true, StandardCharsets.ISO_8859_1);
            return new Run(CompletableFuture.supplyAsync(() -> tool.run(out, err)), o, e);
        }

        int status() throws Exception {
            return done.get(60, TimeUnit.SECONDS);
        }

        String out() {
            return o.toString(StandardCharsets.ISO_8859_1);
        }

        @Override
        public String toString() {
            return out() + e.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
