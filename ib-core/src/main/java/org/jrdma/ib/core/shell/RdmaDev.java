package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Rd.cmd;

import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Guid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.cli.Strerror;

/** {@code rdma dev} (iproute2 6.1 {@code rdma/dev.c}): show, rename. */
final class RdmaDev {
    private RdmaDev() {
    }

    /** dev_caps_to_str(): names of the device capability bits, 0..36. */
    private static final String[] DEV_CAPS = new String[37];

    static {
        String[] low = {"RESIZE_MAX_WR", "BAD_PKEY_CNTR", "BAD_QKEY_CNTR", "RAW_MULTI", "AUTO_PATH_MIG",
            "CHANGE_PHY_PORT", "UD_AV_PORT_ENFORCE_PORT_ENFORCE", "CURR_QP_STATE_MOD", "SHUTDOWN_PORT",
            "INIT_TYPE", "PORT_ACTIVE_EVENT", "SYS_IMAGE_GUID", "RC_RNR_NAK_GEN", "SRQ_RESIZE", "N_NOTIFY_CQ",
            "LOCAL_DMA_LKEY", null, "MEM_WINDOW", "UD_IP_CSUM", "UD_TSO", "XRC", "MEM_MGT_EXTENSIONS",
            "BLOCK_MULTICAST_LOOPBACK", "MEM_WINDOW_TYPE_2A", "MEM_WINDOW_TYPE_2B", "RC_IP_CSUM", "RAW_IP_CSUM",
            "CROSS_CHANNEL", null, "MANAGED_FLOW_STEERING", "SIGNATURE_HANDOVER", "ON_DEMAND_PAGING",
            "SG_GAPS_REG", "VIRTUAL_FUNCTION", "RAW_SCATTER_FCS", "RDMA_NETDEV_OPA_VNIC", "PCI_WRITE_END_PADDING"};
        System.arraycopy(low, 0, DEV_CAPS, 0, low.length);
    }

    private static final String[] NODE_TYPES = {"unknown", "ca", "switch", "router", "rnic", "usnic", "usnic_udp",
        "unspecified"};

    static int cmdDev(Rd rd) {
        return rd.execCmd("dev command", RdmaDev::devShow,
                cmd("show", RdmaDev::devShow),
                cmd("list", RdmaDev::devShow),
                cmd("set", RdmaDev::devSet),
                cmd("help", RdmaDev::devHelp));
    }

    static int devHelp(Rd rd) {
        rd.prOut("Usage: %s dev show [DEV]\n", Rd.FILENAME);
        rd.prOut("       %s dev set [DEV] name DEVNAME\n", Rd.FILENAME);
        rd.prOut("       %s dev set [DEV] netns NSNAME\n", Rd.FILENAME);
        rd.prOut("       %s dev set [DEV] adaptive-moderation [on|off]\n", Rd.FILENAME);
        return 0;
    }

    private static int devShow(Rd rd) {
        return rd.execDev(r -> r.execCmd("parameter", RdmaDev::devNoArgs));
    }

    /** dev_parse_cb(): {@code 0: mlx0: node_type ca fw 1.0.0 node_guid ... sys_image_guid ... }. */
    private static int devNoArgs(Rd rd) {
        IbDevice d = rd.dev;
        DeviceAttr a;
        try {
            a = d.queryDevice();
        } catch (VerbsException e) {
            return rd.kernelError(e);
        }
        StringBuilder sb = new StringBuilder();
        sb.append(d.index()).append(": ").append(d.name()).append(": ");
        int nt = d.nodeType().value();
        sb.append("node_type ").append(nt < NODE_TYPES.length ? NODE_TYPES[nt] : "unknown").append(' ');
        // the kernel leaves the attribute out for a device without firmware version
        if (a.fwVer() != null && !a.fwVer().isEmpty()) {
            sb.append("fw ").append(a.fwVer()).append(' ');
        }
        sb.append("node_guid ").append(Guid.colon(d.nodeGuid())).append(' ');
        sb.append("sys_image_guid ").append(Guid.colon(a.sysImageGuid())).append(' ');
        if (rd.showDetails) {
            // jrdma CQs have no adaptive moderation (the kernel's use_cq_dim is 0)
            sb.append("adaptive-moderation off ");
            sb.append(capsString(a.deviceCapFlags(), DEV_CAPS));
        }
        sb.append('\n');
        rd.prOut("%s", sb);
        return 0;
    }

    /** {@code \n    caps: <A, B>} as dev_print_caps()/link_print_caps() print a bit mask. */
    static String capsString(long caps, String[] names) {
        StringBuilder sb = new StringBuilder("\n    caps: <");
        for (int idx = 0; caps != 0; idx++) {
            if ((caps & 1) != 0) {
                String n = idx < names.length && names[idx] != null ? names[idx] : "UNKNOWN";
                sb.append(n);
                if ((caps >>> 1) != 0) {
                    sb.append(", ");
                }
            }
            caps >>>= 1;
        }
        return sb.append('>').toString();
    }

    private static int devSet(Rd rd) {
        return rd.execRequireDev(r -> r.execCmd("parameter", RdmaDev::devHelp,
                cmd("name", RdmaDev::devSetName),
                cmd("netns", RdmaDev::devSetNetns),
                cmd("adaptive-moderation", RdmaDev::devSetDim)));
    }

    /** RDMA_NLDEV_CMD_SET with a new name: ib_device_rename(). */
    private static int devSetName(Rd rd) {
        if (rd.noArg()) {
            rd.prErr("Please provide device new name.\n");
            return -Errno.EINVAL.value();
        }
        try {
            rd.core.renameDevice(rd.dev, rd.argv());
            return 0;
        } catch (VerbsException e) {
            return rd.kernelError(e);
        }
    }

    /** jrdma has no network namespaces: opening /var/run/netns/NAME fails as for a missing one. */
    private static int devSetNetns(Rd rd) {
        if (rd.noArg()) {
            rd.prErr("Please provide device name.\n");
            return -Errno.EINVAL.value();
        }
        rd.prErr("Cannot open network namespace \"%s\": %s\n", rd.argv(), Strerror.strerror(Errno.ENOENT));
        return -Errno.EINVAL.value();
    }

    private static int devSetDim(Rd rd) {
        return rd.execCmd("parameter", RdmaDev::devHelp,
                cmd("on", RdmaDev::dimUnsupported),
                cmd("off", RdmaDev::dimUnsupported));
    }

    /** jrdma devices have no CQ adaptive moderation to switch. */
    private static int dimUnsupported(Rd rd) {
        return rd.kernelError(new VerbsException(Errno.EOPNOTSUPP, "jrdma CQs have no adaptive moderation (DIM) to switch"));
    }
}
