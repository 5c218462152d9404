package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Rd.cmd;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.RdmaLinkOps;

/**
 * {@code rdma link} (iproute2 6.1 {@code rdma/link.c}): port state, and software devices created
 * and deleted through the drivers' {@link RdmaLinkOps} ({@code rdma link add rxe0 type rxe netdev
 * eth0}).
 * <p>A port whose driver names its net device ({@code DeviceOps.getNetdev}, as nldev asks
 * {@code ib_device_get_netdev}) shows {@code netdev NAME}, with {@code -d} also {@code netdev_index N}.
 */
final class RdmaLink {
    private RdmaLink() {
    }

    /** link_state_to_str(). */
    private static final String[] STATES = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};

    /** phys_state_to_str(). */
    private static final String[] PHYS_STATES = {"NOP", "SLEEP", "POLLING", "DISABLED", "ARMED", "LINK_UP",
        "LINK_ERROR_RECOVER", "PHY_TEST", "UNKNOWN", "OPA_OFFLINE", "UNKNOWN", "OPA_TEST"};

    /** caps_to_str(): IB_PORT_* bits of port_cap_flags, then port_cap_flags2 from bit 32. */
    private static final String[] PORT_CAPS = {"RESERVED", "SM", "NOTICE", "TRAP", "OPT_IPD", "AUTO_MIGR",
        "SL_MAP", "MKEY_NVRAM", "PKEY_NVRAM", "LED_INFO", "SM_DISABLED", "SYS_IMAGE_GUID",
        "PKEY_SW_EXT_PORT_TRAP", "CABLE_INFO", "EXTENDED_SPEEDS", "CAP_MASK2", "CM", "SNMP_TUNNEL", "REINIT",
        "DEVICE_MGMT", "VENDOR_CLASS", "DR_NOTICE", "CAP_MASK_NOTICE", "BOOT_MGMT", "LINK_LATENCY",
        "CLIENT_REG", "OTHER_LOCAL_CHANGES", "LINK_SPPED_WIDTH", "VENDOR_SPECIFIC_MADS", "MULT_PKER_TRAP",
        "MULT_FDB", "HIERARCHY_INFO", "SET_NODE_DESC", "EXT_INFO", "VIRT", "SWITCH_POR_STATE_TABLE",
        "LINK_WIDTH_2X", "LINK_SPEED_HDR"};

    static int cmdLink(Rd rd) {
        return rd.execCmd("link command", RdmaLink::linkShow,
                cmd("add", RdmaLink::linkAdd),
                cmd("delete", RdmaLink::linkDel),
                cmd("show", RdmaLink::linkShow),
                cmd("list", RdmaLink::linkShow),
                cmd("help", RdmaLink::linkHelp));
    }

    static int linkHelp(Rd rd) {
        rd.prOut("Usage: %s link show [DEV/PORT_INDEX]\n", Rd.FILENAME);
        rd.prOut("Usage: %s link add NAME type TYPE netdev NETDEV\n", Rd.FILENAME);
        rd.prOut("Usage: %s link delete NAME\n", Rd.FILENAME);
        return 0;
    }

    private static int linkShow(Rd rd) {
        return rd.execLink(RdmaLink::linkOneShow, true);
    }

    private static int linkOneShow(Rd rd) {
        if (rd.portIdx == 0) {
            return 0;
        }
        return rd.execCmd("parameter", RdmaLink::linkNoArgs);
    }

    /**
     * link_parse_cb(): IB ports show subnet prefix, LIDs and LMC (and, with -d, the port caps);
     * every port its state.
     */
    private static int linkNoArgs(Rd rd) {
        IbDevice d = rd.dev;
        int port = rd.portIdx;
        StringBuilder sb = new StringBuilder();
        try {
            PortAttr a = d.queryPort(port);
            boolean ib = d.linkLayer(port) == LinkLayer.INFINIBAND;
            sb.append("link ").append(d.name()).append('/').append(port).append(' ');
            if (ib) {
                Gid gid0 = d.queryGid(port, 0); // the subnet prefix is GID 0's, as in ib_cache
                long prefix = gid0 == null ? 0 : gid0.subnetPrefix();
                sb.append(String.format("subnet_prefix %04x:%04x:%04x:%04x ", (prefix >>> 48) & 0xffff,
                        (prefix >>> 32) & 0xffff, (prefix >>> 16) & 0xffff, prefix & 0xffff));
                sb.append("lid ").append(a.lid() & 0xffffffffL).append(' ');
                sb.append("sm_lid ").append(a.smLid() & 0xffffffffL).append(' ');
                sb.append("lmc ").append(a.lmc() & 0xff).append(' ');
            }
            int st = a.state() == null ? 0 : a.state().value();
            sb.append("state ").append(st < STATES.length ? STATES[st] : "UNKNOWN").append(' ');
            int ps = a.physState() == null ? 0 : a.physState().value();
            sb.append("physical_state ").append(ps < PHYS_STATES.length ? PHYS_STATES[ps] : "UNKNOWN").append(' ');
            linkPrintNetdev(rd, d.getNetdev(port), sb);
            if (rd.showDetails && ib) {
                sb.append(RdmaDev.capsString(a.portCapFlags() & 0xffffffffL, PORT_CAPS));
            }
        } catch (VerbsException e) {
            return rd.kernelError(e);
        }
        sb.append('\n');
        rd.prOut("%s", sb);
        return 0;
    }

    /**
     * link_print_netdev(): nldev sends the name and the ifindex together and iproute2 prints the name,
     * the index only with -d. The index is the JVM's view of the interface; a name it cannot resolve
     * (no such interface here) is still printed, without the index.
     */
    private static void linkPrintNetdev(Rd rd, String netdev, StringBuilder sb) {
        if (netdev == null) {
            return;
        }
        sb.append("netdev ").append(netdev).append(' ');
        if (rd.showDetails) {
            int index = ifindex(netdev);
            if (index > 0) {
                sb.append("netdev_index ").append(index).append(' ');
            }
        }
    }

    private static int ifindex(String netdev) {
        try {
            java.net.NetworkInterface nif = java.net.NetworkInterface.getByName(netdev);
            return nif == null ? -1 : nif.getIndex();
        } catch (java.net.SocketException | RuntimeException e) {
            return -1;
        }
    }

    private static int linkAdd(Rd rd) {
        if (rd.noArg()) {
            rd.prErr("Please provide a link name to add.\n");
            return -Errno.EINVAL.value();
        }
        rd.linkName = rd.argv();
        rd.argInc();
        return rd.execCmd("parameter", RdmaLink::linkHelp, cmd("type", RdmaLink::linkAddType));
    }

    private static int linkAddType(Rd rd) {
        if (rd.noArg()) {
            rd.prErr("Please provide a link type name.\n");
            return -Errno.EINVAL.value();
        }
        rd.linkType = rd.argv();
        rd.argInc();
        return rd.execCmd("parameter", RdmaLink::linkHelp, cmd("netdev", RdmaLink::linkAddNetdev));
    }

    /**
     * RDMA_NLDEV_CMD_NEWLINK, as nldev_newlink() handles it: a bad name or an unknown type is
     * EINVAL; the driver's newlink does the rest. jrdma extension: words after {@code netdev IF}
     * are {@code key value} pairs for the driver (iproute2 ignores them).
     */
    private static int linkAddNetdev(Rd rd) {
        if (rd.noArg()) {
            rd.prErr("Please provide a net device name.\n");
            return -Errno.EINVAL.value();
        }
        String netdev = rd.argv();
        rd.argInc();
        Map<String, String> options = new LinkedHashMap<>();
        while (!rd.noArg()) {
            String key = rd.argv();
            rd.argInc();
            if (rd.noArg()) {
                rd.prErr("Please provide a value for %s.\n", key);
                return -Errno.EINVAL.value();
            }
            options.put(key, rd.argv());
            rd.argInc();
        }
        String name = rd.linkName;
        if (name.isEmpty() || name.contains("%")) {
            return rd.kernelError(new VerbsException(Errno.EINVAL,
                    name.isEmpty() ? "empty link name" : "a link name is a name, not a pattern: " + name));
        }
        RdmaLinkOps ops = null;
        for (RdmaLinkOps o : rd.linkOps) {
            if (rd.linkType.equals(o.type())) {
                ops = o;
                break;
            }
        }
        if (ops == null) {
            return rd.kernelError(new VerbsException(Errno.EINVAL, "unknown link type"));
        }
        try {
            ops.newLink(name, netdev, options);
            return 0;
        } catch (VerbsException e) {
            return rd.kernelError(e);
        }
    }

    private static int linkDel(Rd rd) {
        return rd.execRequireDev(RdmaLink::linkDelOne);
    }

    /** RDMA_NLDEV_CMD_DELLINK: EINVAL unless a driver created the device through its link ops. */
    private static int linkDelOne(Rd rd) {
        if (!rd.noArg()) {
            rd.prErr("Unknown parameter %s\n", rd.argv());
            return -Errno.EINVAL.value();
        }
        try {
            for (RdmaLinkOps o : rd.linkOps) {
                if (o.delLink(rd.dev)) {
                    return 0;
                }
            }
        } catch (VerbsException e) {
            return rd.kernelError(e);
        }
        return rd.kernelError(new VerbsException(Errno.EINVAL, "not a link device"));
    }
}
