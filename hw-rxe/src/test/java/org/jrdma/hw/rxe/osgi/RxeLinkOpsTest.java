package org.jrdma.hw.rxe.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.VerbsException;
import org.junit.jupiter.api.Test;

/** {@code rdma link add/delete ... type rxe} through the RdmaLinkOps, and thread hygiene over stop/start. */
class RxeLinkOpsTest {
    /** An OSGi Logger (as SCR injects) recording "level: format | args". */
    static org.osgi.service.log.Logger recordingLogger(List<String> lines) {
        return (org.osgi.service.log.Logger) java.lang.reflect.Proxy.newProxyInstance(RxeLinkOpsTest.class.getClassLoader(),
                new Class<?>[] { org.osgi.service.log.Logger.class }, (p, m, a) -> {
                    List<Object> args = new java.util.ArrayList<>();
                    for (int i = 1; a != null && i < a.length; i++) {
                        if (a[i] instanceof Object[] more) {
                            args.addAll(java.util.Arrays.asList(more));
                        } else {
                            args.add(a[i]);
                        }
                    }
                    lines.add(m.getName() + ": " + a[0] + " | " + args);
                    return null;
                });
    }

    @Test
    void linkAddAndDeleteLogThroughTheInjectedLogger() {
        IbCore core = IbCore.newInstance();
        RxeLinkOps ops = new RxeLinkOps(core);
        List<String> lines = new CopyOnWriteArrayList<>();
        ops.log = recordingLogger(lines);
        IbDevice d = ops.newLink("rxe5", "lo", Map.of("addr", "127.0.0.5"));
        assertTrue(ops.delLink(d));
        ops.deactivate();
        assertEquals(3, lines.size(), lines.toString());
        assertEquals("info: {}: added to {} ({}) | [rxe5, lo, rdma link add]", lines.get(0));
        assertTrue(lines.get(1).startsWith("debug: {}: {} transport, gso {}, gro {} | [rxe5, "), lines.get(1));
        assertEquals("info: {}: removed ({}) | [rxe5, rdma link delete]", lines.get(2));
        assertNoThreads();
    }

    @Test
    void linkAddShowsGidThenDeleteRemoves() {
        IbCore core = IbCore.newInstance();
        List<String> removed = new CopyOnWriteArrayList<>();
        core.registerClient(new IbClient() {
            public String name() {
                return "watch";
            }

            public void add(IbDevice device) {
            }

            public void remove(IbDevice device, Object data) {
                removed.add(device.name());
            }
        });
        RxeLinkOps ops = new RxeLinkOps(core);
        assertEquals("rxe", ops.type());
        IbDevice d = ops.newLink("rxe0", "lo", Map.of("addr", "127.0.0.1"));
        assertEquals("rxe0", d.name());
        assertTrue(core.devices().stream().anyMatch(x -> x.name().equals("rxe0")));
        Gid g0 = d.queryGid(1, 0);
        assertEquals(Gid.parse("::ffff:127.0.0.1"), g0, "GID index 0");
        assertTrue(g0.isV4Mapped());
        assertEquals(PortState.ACTIVE, d.queryPort(1).state());
        assertEquals(LinkLayer.ETHERNET, d.queryPort(1).linkLayer());
        assertEquals(Mtu.MTU_4096, d.queryPort(1).activeMtu(), "lo has MTU 65536");
        assertEquals("lo", d.getNetdev(1), "get_netdev: the netdev of rdma link add, as rdma link shows it");
        // a second device on 127.0.0.2, distinct GUID; mtu override
        IbDevice d1 = ops.newLink("rxe1", "lo", Map.of("addr", "127.0.0.2", "mtu", "1500"));
        assertEquals(Mtu.MTU_1024, d1.queryPort(1).activeMtu());
        assertEquals("lo", d1.getNetdev(1));
        // what the Gogo command prints, as iproute2 6.1 prints a Linux rxe port
        assertEquals("link rxe0/1 state ACTIVE physical_state LINK_UP netdev lo \n"
                + "link rxe1/1 state ACTIVE physical_state LINK_UP netdev lo \n", rdma(core, "link"));
        assertNotEquals(d.nodeGuid(), d1.nodeGuid());
        assertThrows(VerbsException.class, () -> ops.newLink("rxe2", "lo", Map.of("addr", "127.0.0.1")),
                "127.0.0.1:4791 is taken");
        assertThrows(VerbsException.class, () -> ops.newLink("rxe3", "nosuchif0", Map.of()));
        assertThrows(VerbsException.class, () -> ops.newLink("rxe0", "lo", Map.of("addr", "127.0.0.3")));
        // found by a tester: mtu 99999999 was accepted
        for (String mtu : new String[] {"99999999", "65537", "67", "-1"}) {
            VerbsException e = assertThrows(VerbsException.class,
                    () -> ops.newLink("rxe4", "lo", Map.of("addr", "127.0.0.4", "mtu", mtu)));
            assertEquals(org.jrdma.ib.core.Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("mtu " + mtu + " out of range 68..65536"), e.getMessage());
        }
        VerbsException notHere = assertThrows(VerbsException.class,
                () -> ops.newLink("rxe4", "lo", Map.of("addr", "10.1.2.3")));
        assertTrue(notHere.getMessage().contains("10.1.2.3 is not an address of lo"), notHere.getMessage());
        assertFalse(core.devices().stream().anyMatch(x -> x.name().equals("rxe4")), "nothing half-made");
        assertTrue(ops.delLink(d));
        assertFalse(core.devices().stream().anyMatch(x -> x.name().equals("rxe0")));
        assertTrue(removed.contains("rxe0"));
        assertFalse(ops.delLink(d));
        ops.deactivate();
        assertTrue(core.devices().isEmpty());
        assertNoThreads();
    }

    @Test
    void stopStartLeavesNoThreads() throws Exception {
        for (int i = 0; i < 5; i++) {
            IbCore core = IbCore.newInstance();
            RxeLinkOps ops = new RxeLinkOps(core);
            IbDevice a = ops.newLink("rxe0", "lo", Map.of("addr", "127.0.0.1", "transport", i % 2 == 0 ? "nio" : "auto"));
            ops.newLink("rxe1", "lo", Map.of("addr", "127.0.0.2"));
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().startsWith(NettyWire.THREAD_PREFIX)));
            assertTrue(ops.delLink(a));
            ops.deactivate(); // bundle stop: rxe1 goes too
            assertNoThreads();
        }
    }

    /** Runs ib-core's Gogo command {@code rdma} on {@code core} and returns its stdout. */
    static String rdma(IbCore core, String... args) {
        org.jrdma.ib.core.shell.IbCommands cmds = new org.jrdma.ib.core.shell.IbCommands();
        java.io.PrintStream out = System.out;
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        try {
            java.lang.reflect.Field f = org.jrdma.ib.core.shell.IbCommands.class.getDeclaredField("core");
            f.setAccessible(true); // the DS-injected reference
            f.set(cmds, core);
            System.setOut(new java.io.PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8));
            cmds.rdma(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        } finally {
            System.setOut(out);
        }
        return buf.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    static void assertNoThreads() {
        // RxeDevice.close waits for its engine thread to end: not even one still ending may be left
        List<String> engines = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName).filter(n -> n.startsWith("rxe-engine")).toList();
        if (!engines.isEmpty()) {
            throw new AssertionError("engine threads left after close: " + engines);
        }
        long end = System.nanoTime() + 3_000_000_000L;
        List<String> left;
        do {
            left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> n.startsWith(NettyWire.THREAD_PREFIX) || n.startsWith("rxe-link"))
                    .toList();
            if (left.isEmpty()) {
                return;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - end < 0);
        throw new AssertionError("threads left: " + left);
    }
}
