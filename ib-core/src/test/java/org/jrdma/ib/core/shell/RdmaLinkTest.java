package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Shell.addMlx;
import static org.jrdma.ib.core.shell.Shell.addRxe;
import static org.jrdma.ib.core.shell.Shell.rdma;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.RdmaLinkOps;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.testdriver.TestDriver;
import org.junit.jupiter.api.Test;

/** iproute2 6.1 rdma/link.c, and nldev's newlink/dellink through RdmaLinkOps. */
class RdmaLinkTest {
    final IbCore core = IbCore.newInstance();

    static final String MLX0_1 = "link mlx0/1 subnet_prefix fe80:0000:0000:0000 lid 1 sm_lid 1 lmc 0 "
            + "state ACTIVE physical_state LINK_UP \n";
    static final String MLX0_2 = "link mlx0/2 subnet_prefix fe80:0000:0000:0000 lid 2 sm_lid 1 lmc 0 "
            + "state ACTIVE physical_state LINK_UP \n";
    /** An Ethernet port whose driver names no netdev. */
    static final String RXE0_1 = "link rxe0/1 state ACTIVE physical_state LINK_UP \n";
    /** As captured from a real rxe (devices.txt beside the Linux rxe captures; iproute2 6.1, Linux 6.1). */
    static final String RXE0_1_ETH0 = "link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth0 \n";
    static final String HELP = """
            Usage: rdma link show [DEV/PORT_INDEX]
            Usage: rdma link add NAME type TYPE netdev NETDEV
            Usage: rdma link delete NAME
            """;

    /** A driver like rxe: creates Ethernet devices on request and deletes only those. */
    static final class FakeRxe implements RdmaLinkOps {
        final List<String> calls = new ArrayList<>();
        final Map<IbDevice, RegisteredDevice> created = new HashMap<>();
        private final IbCore core;

        FakeRxe(IbCore core) {
            this.core = core;
        }

        @Override
        public String type() {
            return "rxe";
        }

        @Override
        public IbDevice newLink(String name, String netdev, Map<String, String> options) {
            calls.add("newlink " + name + " " + netdev + " " + options);
            if (netdev.equals("nosuch0")) {
                throw new VerbsException(Errno.ENODEV, "no netdev " + netdev);
            }
            RegisteredDevice h = core.registrar().register(new NetdevDriver(netdev).registration(name));
            created.put(h.device(), h);
            return h.device();
        }

        @Override
        public boolean delLink(IbDevice device) {
            calls.add("dellink " + device.name());
            RegisteredDevice h = created.remove(device);
            if (h == null) {
                return false;
            }
            h.unregister();
            return true;
        }
    }

    /** An Ethernet device on a netdev, as rxe: {@code get_netdev} names it. */
    static final class NetdevDriver extends TestDriver {
        private final String netdev;

        NetdevDriver(String netdev) {
            super(1, LinkLayer.ETHERNET, 0x0200000000000001L);
            this.netdev = netdev;
        }

        @Override
        public String getNetdev(int portNum) {
            return netdev;
        }
    }

    /** A second link type that never claims a device, to see delete ask every driver. */
    static final class OtherType implements RdmaLinkOps {
        final List<String> calls = new ArrayList<>();

        @Override
        public String type() {
            return "siw";
        }

        @Override
        public IbDevice newLink(String name, String netdev, Map<String, String> options) {
            throw new AssertionError("siw asked to create " + name);
        }

        @Override
        public boolean delLink(IbDevice device) {
            calls.add("dellink " + device.name());
            return false;
        }
    }

    @Test
    void showsEveryPort() {
        addMlx(core);
        addRxe(core);
        rdma(core, "link").is(0, MLX0_1 + MLX0_2 + RXE0_1, "");
        rdma(core, "link", "show").is(0, MLX0_1 + MLX0_2 + RXE0_1, "");
        rdma(core, "l", "list").is(0, MLX0_1 + MLX0_2 + RXE0_1, "");
    }

    @Test
    void showsOnePort() {
        addMlx(core);
        addRxe(core);
        rdma(core, "link", "show", "mlx0/2").is(0, MLX0_2, "");
        rdma(core, "link", "show", "rxe0/1").is(0, RXE0_1, "");
        rdma(core, "link", "show", "mlx0/1", "extra").is(0, "", "Unknown parameter 'extra'.\n");
    }

    /** iproute2 6.1's strict port mode: a link is DEV/PORT, nothing else. */
    @Test
    void anythingButAnExistingDevPortIsWrongDeviceName() {
        addMlx(core);
        for (String bad : new String[] {"mlx0", "mlx0/", "mlx0/0", "mlx0/3", "mlx0/-", "mlx0/x", "foo/1", "mlx/1"}) {
            rdma(core, "link", "show", bad).is(1, "", "Wrong device name\n");
        }
    }

    @Test
    void detailsAddPortCapsOnInfiniBandPortsOnly() {
        core.registrar().register(new Shell.FlagsDriver(LinkLayer.INFINIBAND, 0x0002c90300000001L, 0,
                1 << 1 | 1 << 16 | 1 << 31).registration("mlx0"));
        core.registrar().register(new Shell.FlagsDriver(LinkLayer.ETHERNET, 0x0200000000000001L, 0, 1 << 16)
                .registration("rxe0"));
        rdma(core, "-d", "link").is(0, "link mlx0/1 subnet_prefix fe80:0000:0000:0000 lid 1 sm_lid 1 lmc 0 "
                + "state ACTIVE physical_state LINK_UP \n    caps: <SM, CM, HIERARCHY_INFO>\n" + RXE0_1, "");
    }

    /** link_print_netdev(): after physical_state; nldev sends it only when the port has a netdev. */
    @Test
    void anEthernetPortShowsItsNetdevAsTheCapture() {
        addMlx(core);
        core.registrar().register(new NetdevDriver("eth0").registration("rxe0"));
        rdma(core, "link", "show", "rxe0/1").is(0, RXE0_1_ETH0, "");
        rdma(core, "link").is(0, MLX0_1 + MLX0_2 + RXE0_1_ETH0, "");
        assertEquals(null, core.device("mlx0").orElseThrow().getNetdev(1), "an InfiniBand port has no netdev");
        assertEquals("eth0", core.device("rxe0").orElseThrow().getNetdev(1));
    }

    /** With -d iproute2 adds the netdev's ifindex, before the caps; a name unknown here goes without one. */
    @Test
    void detailsAddTheNetdevIndex() throws Exception {
        java.net.NetworkInterface lo = java.net.NetworkInterface.getByName("lo");
        org.junit.jupiter.api.Assumptions.assumeTrue(lo != null, "no netdev lo on this host");
        core.registrar().register(new NetdevDriver("lo").registration("rxe0"));
        core.registrar().register(new NetdevDriver("nosuch9").registration("rxe1"));
        rdma(core, "-d", "link").is(0, "link rxe0/1 state ACTIVE physical_state LINK_UP netdev lo netdev_index "
                + lo.getIndex() + " \n" + "link rxe1/1 state ACTIVE physical_state LINK_UP netdev nosuch9 \n", "");
        rdma(core, "link").is(0, "link rxe0/1 state ACTIVE physical_state LINK_UP netdev lo \n"
                + "link rxe1/1 state ACTIVE physical_state LINK_UP netdev nosuch9 \n", "");
    }

    @Test
    void addDispatchesToTheDriverOfThatType() {
        addMlx(core);
        FakeRxe rxe = new FakeRxe(core);
        OtherType siw = new OtherType();
        List<RdmaLinkOps> ops = List.of(siw, rxe);
        rdma(core, ops, "link", "add", "rxe7", "type", "rxe", "netdev", "eth0").is(0, "", "");
        assertEquals(List.of("newlink rxe7 eth0 {}"), rxe.calls);
        rdma(core, ops, "link").is(0, MLX0_1 + MLX0_2 + "link rxe7/1 state ACTIVE physical_state LINK_UP netdev eth0 \n",
                "");
        assertEquals("eth0", core.device("rxe7").orElseThrow().getNetdev(1));
        rdma(core, ops, "l", "a", "rxe8", "t", "rxe", "n", "eth1", "mtu", "1500", "queues", "2").is(0, "", "");
        assertEquals("newlink rxe8 eth1 {mtu=1500, queues=2}", rxe.calls.get(1));
    }

    @Test
    void addFailures() {
        FakeRxe rxe = new FakeRxe(core);
        List<RdmaLinkOps> ops = List.of(rxe);
        rdma(core, ops, "link", "add", "x0", "type", "foo", "netdev", "eth0").is(1, "",
                "error: Invalid argument\nreason: unknown link type\n");
        rdma(core, ops, "link", "add", "x%d", "type", "rxe", "netdev", "eth0").is(1, "",
                "error: Invalid argument\nreason: a link name is a name, not a pattern: x%d\n");
        rdma(core, ops, "link", "add", "x0", "type", "rxe", "netdev", "nosuch0").is(1, "",
                "error: No such device\nreason: no netdev nosuch0\n");
        rdma(core, ops, "link", "add", "x0", "type", "rxe", "netdev", "eth0", "mtu").is(1, "",
                "Please provide a value for mtu.\n");
        assertEquals(List.of("newlink x0 nosuch0 {}"), rxe.calls);
        rdma(core, ops, "link", "add").is(1, "", "Please provide a link name to add.\n");
        rdma(core, ops, "link", "add", "x0").is(0, HELP, "");
        rdma(core, ops, "link", "add", "x0", "bogus").is(0, "", "Unknown parameter 'bogus'.\n");
        rdma(core, ops, "link", "add", "x0", "type").is(1, "", "Please provide a link type name.\n");
        rdma(core, ops, "link", "add", "x0", "type", "rxe").is(0, HELP, "");
        rdma(core, ops, "link", "add", "x0", "type", "rxe", "netdev").is(1, "", "Please provide a net device name.\n");
        rdma(core, "link", "add", "x0", "type", "rxe", "netdev", "eth0").is(1, "",
                "error: Invalid argument\nreason: unknown link type\n");
    }

    @Test
    void addOfATakenNameFailsAsTheKernelDoes() {
        addRxe(core);
        List<RdmaLinkOps> ops = List.of(new FakeRxe(core));
        rdma(core, ops, "link", "add", "rxe0", "type", "rxe", "netdev", "eth0").is(1, "",
                "error: File exists\nreason: device name rxe0 is already in use\n");
    }

    @Test
    void deleteAsksEachDriverUntilOneRemovesTheDevice() {
        addMlx(core);
        FakeRxe rxe = new FakeRxe(core);
        OtherType siw = new OtherType();
        List<RdmaLinkOps> ops = List.of(siw, rxe);
        rdma(core, ops, "link", "add", "rxe0", "type", "rxe", "netdev", "eth0").is(0, "", "");
        rdma(core, ops, "link", "delete", "rxe0").is(0, "", "");
        assertEquals(List.of("dellink rxe0"), siw.calls);
        assertEquals(List.of("newlink rxe0 eth0 {}", "dellink rxe0"), rxe.calls);
        assertFalse(core.device("rxe0").isPresent());
        rdma(core, ops, "link").is(0, MLX0_1 + MLX0_2, "");
    }

    @Test
    void deleteFailures() {
        addMlx(core);
        List<RdmaLinkOps> ops = List.of(new FakeRxe(core));
        rdma(core, ops, "link", "delete", "mlx0").is(1, "", "error: Invalid argument\nreason: not a link device\n");
        rdma(core, ops, "link", "delete").is(1, "", "Please provide device name.\n");
        rdma(core, ops, "link", "delete", "foo").is(1, "", "Wrong device name - foo\n");
        rdma(core, ops, "link", "delete", "mlx0", "now").is(1, "", "Unknown parameter now\n");
        assertEquals("mlx0", core.devices().get(0).name());
    }

    @Test
    void helpAndUnknownCommand() {
        rdma(core, "link", "help").is(0, HELP, "");
        rdma(core, "link", "up").is(0, "", "Unknown link command 'up'.\n");
    }
}
