package org.jrdma.ulp.iser.conn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The transport scenarios over two hw-rxe devices (RoCE v2 on real UDP, 127.X.Y.1 and .2). */
class RdmaIserTransportRxeTest extends AbstractIserTransportTest {
    @Override
    IserFabric openFabric() {
        return new RxeIserFabric();
    }

    /**
     * A portal whose device went away (driver stopped, {@code rdma link delete}) listens again once a device has
     * its address (driver started again): before, the listener was only logged as gone and the target never
     * served on that portal again.
     */
    @Test
    void aPortalListensAgainWhenItsDeviceComesBack() throws Exception {
        RdmaIserConnection[] c = connect();
        assertEquals(List.of(), fabric.removeTargetDevice().leaked(), "left to ib-core to destroy");
        assertEquals("device removal", targetInbox.awaitDisconnect());
        fabric.restoreTargetDevice();
        Inbox again = new Inbox();
        IserConnection ic = null;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ic == null) { // the listener tries every 500 ms
            try {
                ic = initiator.connect(fabric.portal(PORT), again).toCompletableFuture().get(15, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                assertTrue(System.nanoTime() - end < 0, "not listening again: " + e.getCause());
                Thread.sleep(100);
            }
        }
        await(ic.send(nopOut(7, new byte[] {1, 2, 3})));
        assertTrue(target.connections().size() == 1, "the new connection on the target");
        ic.close();
        c[0].close();
    }

    /**
     * A configured portal whose device does not exist yet (the container reads the target's .cfg before the
     * rxe device's): listenWhenReady does not fail and serves once the device comes; plain listen (targetcli's
     * enable_iser) still refuses with EADDRNOTAVAIL.
     */
    @Test
    void aPortalConfiguredBeforeItsDeviceListensOnceTheDeviceComes() throws Exception {
        assertEquals(List.of(), fabric.removeTargetDevice().leaked());
        target = new RdmaIserTransport(fabric.cm(), IserConnectionConfig.ofQueueDepth(32));
        IserTransportException refused = assertThrows(IserTransportException.class,
                () -> target.listen(fabric.portal(PORT), c -> { }));
        assertTrue(refused.getMessage().contains("EADDRNOTAVAIL"), refused.getMessage());
        target.listenWhenReady(fabric.portal(PORT), c -> {
            c.handler(targetInbox);
            accepted.complete((RdmaIserConnection) c);
        });
        fabric.restoreTargetDevice();
        initiator = new RdmaIserTransport(fabric.cm(), fabric.initiatorConfig(IserConnectionConfig.ofQueueDepth(32)));
        IserConnection ic = null;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ic == null) { // the listener tries every 500 ms
            try {
                ic = initiator.connect(fabric.portal(PORT), initiatorInbox).toCompletableFuture().get(15, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                assertTrue(System.nanoTime() - end < 0, "never listened: " + e.getCause());
                Thread.sleep(100);
            }
        }
        await(ic.send(nopOut(9, new byte[] {4, 5, 6})));
        assertArrayEquals(new byte[] {4, 5, 6}, targetInbox.next().pdu().data());
        ic.close();
    }
}
