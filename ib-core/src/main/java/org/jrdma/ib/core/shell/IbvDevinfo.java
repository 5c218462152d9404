package org.jrdma.ib.core.shell;

import org.jrdma.ib.core.cli.CNum;
import org.jrdma.ib.core.cli.Getopt;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

import org.jrdma.ib.core.AtomicCap;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.Guid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.NodeType;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.cli.Getopt.LongOption;

/**
 * {@code ibv_devinfo [-d DEV] [-i PORT] [-l] [-v]}, line for line as rdma-core 44's
 * {@code libibverbs/examples/devinfo.c} prints it (tabs, field order, exit statuses: -1 is 255).
 * <p>What jrdma has no notion of is printed as a device without the feature prints it: no ODP, no
 * TSO/RSS, no tag matching, no completion timestamps, {@code port_cap_flags2} 0, no
 * {@code board_id} (a sysfs file the real tool prints only when it exists).
 */
final class IbvDevinfo extends ShellTool {
    private static final String PROG = "ibv_devinfo";

    private static final LongOption[] LONG_OPTIONS = {
        new LongOption("ib-dev", Getopt.REQUIRED_ARGUMENT, 'd'),
        new LongOption("ib-port", Getopt.REQUIRED_ARGUMENT, 'i'),
        new LongOption("list", Getopt.NO_ARGUMENT, 'l'),
        new LongOption("verbose", Getopt.NO_ARGUMENT, 'v'),
    };

    /** IBV_DEVICE_* bits of {@code device_cap_flags}, in print_device_cap_flags() order. */
    private static final Object[][] DEVICE_CAP_FLAGS = {
        {1L, "RESIZE_MAX_WR"}, {1L << 1, "BAD_PKEY_CNTR"}, {1L << 2, "BAD_QKEY_CNTR"},
        {1L << 3, "RAW_MULTI"}, {1L << 4, "AUTO_PATH_MIG"}, {1L << 5, "CHANGE_PHY_PORT"},
        {1L << 6, "UD_AV_PORT_ENFORCE"}, {1L << 7, "CURR_QP_STATE_MOD"}, {1L << 8, "SHUTDOWN_PORT"},
        {1L << 9, "INIT_TYPE"}, {1L << 10, "PORT_ACTIVE_EVENT"}, {1L << 11, "SYS_IMAGE_GUID"},
        {1L << 12, "RC_RNR_NAK_GEN"}, {1L << 13, "SRQ_RESIZE"}, {1L << 14, "N_NOTIFY_CQ"},
        {1L << 17, "MEM_WINDOW"}, {1L << 18, "UD_IP_CSUM"}, {1L << 20, "XRC"},
        {1L << 21, "MEM_MGT_EXTENSIONS"}, {1L << 23, "MEM_WINDOW_TYPE_2A"},
        {1L << 24, "MEM_WINDOW_TYPE_2B"}, {1L << 25, "RC_IP_CSUM"}, {1L << 26, "RAW_IP_CSUM"},
        {1L << 29, "MANAGED_FLOW_STEERING"},
    };

    /** The upper 32 bits of {@code device_cap_flags_ex} devinfo knows. */
    private static final Object[][] DEVICE_CAP_FLAGS_EX = {
        {1L << 34, "RAW_SCATTER_FCS"}, {1L << 36, "PCI_WRITE_END_PADDING"},
    };

    @Override
    void execute(IbCore core, PrintStream out, PrintStream err, String... args) {
        StringBuilder stderr = new StringBuilder();
        Printer p = new Printer(out);
        int status = devinfo(core, p, stderr, args);
        out.flush();
        exit(status, stderr, err);
    }

    private int devinfo(IbCore core, Printer p, StringBuilder stderr, String[] args) {
        String ibDevname = null;
        int ibPort = 0;
        boolean verbose = false;
        Getopt g = new Getopt(PROG, args, "d:i:lv", LONG_OPTIONS, stderr);
        for (int c; (c = g.next()) != -1; ) {
            switch (c) {
                case 'd' -> ibDevname = g.optarg;
                case 'i' -> {
                    ibPort = (int) CNum.strtol(g.optarg);
                    if (ibPort <= 0) {
                        usage(p);
                        return 1;
                    }
                }
                case 'v' -> verbose = true;
                case 'l' -> {
                    // -l acts when it is parsed: later options are never looked at
                    List<IbDevice> list = core.devices();
                    p.printf("%d HCA%s found:\n", list.size(), list.size() != 1 ? "s" : "");
                    for (IbDevice d : list) {
                        p.printf("\t%s\n", d.name());
                    }
                    p.printf("\n");
                    return 0;
                }
                default -> {
                    usage(p);
                    return -1;
                }
            }
        }

        List<IbDevice> devices = core.devices();
        int ret = 0;
        // devinfo.c passes the port as uint8_t: -i 257 means port 1, -i 256 all ports
        int port = ibPort & 0xff;
        if (ibDevname != null) {
            IbDevice dev = null;
            for (IbDevice d : devices) {
                if (d.name().equals(ibDevname)) {
                    dev = d;
                    break;
                }
            }
            if (dev == null) {
                stderr.append("IB device '").append(ibDevname).append("' wasn't found\n");
                return -1;
            }
            ret |= printHcaCap(dev, port, verbose, p, stderr);
        } else {
            if (devices.isEmpty()) {
                stderr.append("No IB devices found\n");
                return -1;
            }
            for (IbDevice d : devices) {
                ret |= printHcaCap(d, port, verbose, p, stderr);
            }
        }
        return ret;
    }

    private static void usage(Printer p) {
        p.printf("Usage: %s             print the ca attributes\n", PROG);
        p.printf("\n");
        p.printf("Options:\n");
        p.printf("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
        p.printf("  -i, --ib-port=<port>   use port <port> of IB device (default all ports)\n");
        p.printf("  -l, --list             print only the IB devices names\n");
        p.printf("  -v, --verbose          print all the attributes of the IB device(s)\n");
    }

    /** {@code print_hca_cap()}: 0, or devinfo.c's rc (1 open, 2 query, 4 bad port, errno of a port query). */
    private static int printHcaCap(IbDevice dev, int ibPort, boolean verbose, Printer p, StringBuilder stderr) {
        if (!dev.isRegistered()) {
            stderr.append("Failed to open device\n");
            return 1;
        }
        DeviceAttr a;
        try {
            a = dev.queryDevice();
        } catch (VerbsException e) {
            stderr.append("Failed to query device props\n");
            return 2;
        }
        int portCnt = dev.physPortCnt();
        if (ibPort != 0 && ibPort > portCnt) {
            stderr.append("Invalid port requested for device\n");
            return 4;
        }
        boolean iwarp = dev.nodeType() == NodeType.RNIC;
        // ibv_transport_type: IB for CA/switch/router nodes (RoCE and rxe included), iWARP for RNICs
        p.printf("hca_id:\t%s\n", dev.name());
        p.printf("\ttransport:\t\t\t%s (%d)\n", iwarp ? "iWARP" : "InfiniBand", iwarp ? 1 : 0);
        if (a.fwVer() != null && !a.fwVer().isEmpty()) {
            p.printf("\tfw_ver:\t\t\t\t%s\n", a.fwVer());
        }
        p.printf("\tnode_guid:\t\t\t%s\n", Guid.colon(dev.nodeGuid()));
        p.printf("\tsys_image_guid:\t\t\t%s\n", Guid.colon(a.sysImageGuid()));
        p.printf("\tvendor_id:\t\t\t0x%04x\n", a.vendorId());
        p.printf("\tvendor_part_id:\t\t\t%d\n", a.vendorPartId());
        p.printf("\thw_ver:\t\t\t\t0x%X\n", a.hwVer());
        p.printf("\tphys_port_cnt:\t\t\t%d\n", portCnt);
        if (verbose) {
            printVerboseDevice(a, p);
        }
        for (int port = 1; port <= portCnt; ++port) {
            if (ibPort != 0 && port != ibPort) {
                continue;
            }
            PortAttr pa;
            try {
                pa = dev.queryPort(port);
            } catch (VerbsException e) {
                stderr.append(String.format("Failed to query port %d props\n", port));
                return e.errno().value();
            }
            p.printf("\t\tport:\t%d\n", port);
            p.printf("\t\t\tstate:\t\t\t%s (%d)\n", portStateStr(pa.state().value()), pa.state().value());
            p.printf("\t\t\tmax_mtu:\t\t%s (%d)\n", mtuStr(pa.maxMtu()), mtuCode(pa.maxMtu()));
            p.printf("\t\t\tactive_mtu:\t\t%s (%d)\n", mtuStr(pa.activeMtu()), mtuCode(pa.activeMtu()));
            p.printf("\t\t\tsm_lid:\t\t\t%d\n", pa.smLid());
            p.printf("\t\t\tport_lid:\t\t%d\n", pa.lid());
            p.printf("\t\t\tport_lmc:\t\t0x%02x\n", pa.lmc());
            p.printf("\t\t\tlink_layer:\t\t%s\n", pa.linkLayer() == null ? "Unspecified" : pa.linkLayer().label());
            if (verbose) {
                p.printf("\t\t\tmax_msg_sz:\t\t0x%x\n", (int) pa.maxMsgSz());
                p.printf("\t\t\tport_cap_flags:\t\t0x%08x\n", pa.portCapFlags());
                p.printf("\t\t\tport_cap_flags2:\t0x%04x\n", 0);
                p.printf("\t\t\tmax_vl_num:\t\t%s (%d)\n", vlStr(pa.maxVlNum()), pa.maxVlNum());
                p.printf("\t\t\tbad_pkey_cntr:\t\t0x%x\n", pa.badPkeyCntr());
                p.printf("\t\t\tqkey_viol_cntr:\t\t0x%x\n", pa.qkeyViolCntr());
                p.printf("\t\t\tsm_sl:\t\t\t%d\n", pa.smSl());
                p.printf("\t\t\tpkey_tbl_len:\t\t%d\n", pa.pkeyTblLen());
                p.printf("\t\t\tgid_tbl_len:\t\t%d\n", pa.gidTblLen());
                p.printf("\t\t\tsubnet_timeout:\t\t%d\n", pa.subnetTimeout());
                p.printf("\t\t\tinit_type_reply:\t%d\n", 0);
                p.printf("\t\t\tactive_width:\t\t%sX (%d)\n", widthStr(pa.activeWidth()), pa.activeWidth());
                p.printf("\t\t\tactive_speed:\t\t%s (%d)\n", speedStr(pa.activeSpeed()), pa.activeSpeed());
                if (!iwarp) {
                    int ps = pa.physState() == null ? 0 : pa.physState().value();
                    p.printf("\t\t\tphys_state:\t\t%s (%d)\n", physStateStr(ps), ps);
                }
                int rc = printAllPortGids(dev, pa, port, p, stderr);
                if (rc != 0) {
                    return rc;
                }
            }
            p.printf("\n");
        }
        return 0;
    }

    private static void printVerboseDevice(DeviceAttr a, Printer p) {
        long flags = a.deviceCapFlags();
        int atomic = atomicCapValue(a.atomicCap());
        p.printf("\tmax_mr_size:\t\t\t0x%x\n", a.maxMrSize());
        p.printf("\tpage_size_cap:\t\t\t0x%x\n", a.pageSizeCap());
        p.printf("\tmax_qp:\t\t\t\t%d\n", a.maxQp());
        p.printf("\tmax_qp_wr:\t\t\t%d\n", a.maxQpWr());
        p.printf("\tdevice_cap_flags:\t\t0x%08x\n", (int) flags);
        printFlags((int) flags & 0xffffffffL, DEVICE_CAP_FLAGS, p, "0x%X");
        // uverbs reports min(max_send_sge, max_recv_sge) as max_sge
        p.printf("\tmax_sge:\t\t\t%d\n", Math.min(a.maxSendSge(), a.maxRecvSge()));
        p.printf("\tmax_sge_rd:\t\t\t%d\n", a.maxSgeRd());
        p.printf("\tmax_cq:\t\t\t\t%d\n", a.maxCq());
        p.printf("\tmax_cqe:\t\t\t%d\n", a.maxCqe());
        p.printf("\tmax_mr:\t\t\t\t%d\n", a.maxMr());
        p.printf("\tmax_pd:\t\t\t\t%d\n", a.maxPd());
        p.printf("\tmax_qp_rd_atom:\t\t\t%d\n", a.maxQpRdAtom());
        p.printf("\tmax_ee_rd_atom:\t\t\t%d\n", 0);
        p.printf("\tmax_res_rd_atom:\t\t%d\n", a.maxResRdAtom());
        p.printf("\tmax_qp_init_rd_atom:\t\t%d\n", a.maxQpInitRdAtom());
        p.printf("\tmax_ee_init_rd_atom:\t\t%d\n", 0);
        p.printf("\tatomic_cap:\t\t\t%s (%d)\n", atomicCapStr(atomic), atomic);
        p.printf("\tmax_ee:\t\t\t\t%d\n", 0);
        p.printf("\tmax_rdd:\t\t\t%d\n", 0);
        p.printf("\tmax_mw:\t\t\t\t%d\n", a.maxMw());
        p.printf("\tmax_raw_ipv6_qp:\t\t%d\n", 0);
        p.printf("\tmax_raw_ethy_qp:\t\t%d\n", 0);
        p.printf("\tmax_mcast_grp:\t\t\t%d\n", a.maxMcastGrp());
        p.printf("\tmax_mcast_qp_attach:\t\t%d\n", a.maxMcastQpAttach());
        p.printf("\tmax_total_mcast_qp_attach:\t%d\n", a.maxTotalMcastQpAttach());
        p.printf("\tmax_ah:\t\t\t\t%d\n", a.maxAh());
        p.printf("\tmax_fmr:\t\t\t%d\n", 0); // FMRs are gone from the kernel: never max_map_per_fmr
        p.printf("\tmax_srq:\t\t\t%d\n", a.maxSrq());
        if (a.maxSrq() != 0) {
            p.printf("\tmax_srq_wr:\t\t\t%d\n", a.maxSrqWr());
            p.printf("\tmax_srq_sge:\t\t\t%d\n", a.maxSrqSge());
        }
        p.printf("\tmax_pkeys:\t\t\t%d\n", a.maxPkeys());
        p.printf("\tlocal_ca_ack_delay:\t\t%d\n", a.localCaAckDelay());
        // print_odp_caps(): jrdma has no on-demand paging
        p.printf("\tgeneral_odp_caps:\n");
        for (String t : new String[] {"rc", "uc", "ud", "xrc"}) {
            p.printf("\t%s_odp_caps:\n", t);
            p.printf("\t\t\t\t\tNO SUPPORT\n");
        }
        p.printf("\tcompletion_timestamp_mask not supported\n");
        p.printf("\tcore clock not supported\n");
        p.printf("\tdevice_cap_flags_ex:\t\t0x%X\n", flags);
        printFlags(flags & 0xffffffff00000000L, DEVICE_CAP_FLAGS_EX, p, "0x%X");
        p.printf("\ttso_caps:\n");
        p.printf("\t\tmax_tso:\t\t\t%d\n", 0);
        p.printf("\trss_caps:\n");
        p.printf("\t\tmax_rwq_indirection_tables:\t\t\t%d\n", 0);
        p.printf("\t\tmax_rwq_indirection_table_size:\t\t\t%d\n", 0);
        p.printf("\t\trx_hash_function:\t\t\t\t0x%x\n", 0);
        p.printf("\t\trx_hash_fields_mask:\t\t\t\t0x%X\n", 0);
        p.printf("\tmax_wq_type_rq:\t\t\t%d\n", 0);
        p.printf("\tpacket_pacing_caps:\n");
        p.printf("\t\tqp_rate_limit_min:\t%dkbps\n", 0);
        p.printf("\t\tqp_rate_limit_max:\t%dkbps\n", 0);
        p.printf("\ttag matching not supported\n");
        p.printf("\tnum_comp_vectors:\t\t%d\n", a.numCompVectors());
    }

    /** One line per known bit, then the unknown ones together, as print_device_cap_flags() does. */
    private static void printFlags(long flags, Object[][] names, Printer p, String unknownFormat) {
        long known = 0;
        for (Object[] n : names) {
            long bit = (Long) n[0];
            known |= bit;
            if ((flags & bit) != 0) {
                p.printf("\t\t\t\t\t%s\n", n[1]);
            }
        }
        long unknown = flags & ~known;
        if (unknown != 0) {
            p.printf("\t\t\t\t\tUnknown flags: " + unknownFormat + "\n", unknown);
        }
    }

    /**
     * {@code print_all_port_gids()}: GIDs whose interface id is not zero (devinfo's null_gid() looks
     * at bytes 8..15 only). IB ports print the full form; Ethernet ports the inet_ntop() form and the
     * GID type, which is RoCE v2 for every jrdma RoCE GID (as for rxe).
     */
    private static int printAllPortGids(IbDevice dev, PortAttr pa, int port, Printer p, StringBuilder stderr) {
        boolean eth = pa.linkLayer() == LinkLayer.ETHERNET;
        for (int i = 0; i < pa.gidTblLen(); i++) {
            Gid gid;
            try {
                gid = dev.queryGid(port, i);
            } catch (VerbsException e) {
                stderr.append(String.format("Failed to query gid to port %d, index %d\n", port, i));
                return -1; // ibv_query_gid() fails with -1
            }
            if (gid == null || gid.interfaceId() == 0) {
                continue;
            }
            if (eth) {
                p.printf("\t\t\tGID[%3d]:\t\t%s%s\n", i, gid.toCompressedString(), ", RoCE v2");
            } else {
                p.printf("\t\t\tGID[%3d]:\t\t%s%s\n", i, gid.toString(), "");
            }
        }
        return 0;
    }

    private static String portStateStr(int state) {
        return switch (state) {
            case 1 -> "PORT_DOWN";
            case 2 -> "PORT_INIT";
            case 3 -> "PORT_ARMED";
            case 4 -> "PORT_ACTIVE";
            default -> "invalid state";
        };
    }

    private static String physStateStr(int physState) {
        return switch (physState) {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION TRAINNING"; // sic, as devinfo.c spells it
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY TEST";
            default -> "invalid physical state";
        };
    }

    private static int atomicCapValue(AtomicCap cap) {
        if (cap == null) {
            return 0;
        }
        return switch (cap) {
            case NONE -> 0;
            case HCA -> 1;
            case GLOB -> 2;
            default -> 0;
        };
    }

    private static String atomicCapStr(int cap) {
        return switch (cap) {
            case 0 -> "ATOMIC_NONE";
            case 1 -> "ATOMIC_HCA";
            case 2 -> "ATOMIC_GLOB";
            default -> "invalid atomic capability";
        };
    }

    private static int mtuCode(Mtu mtu) {
        return mtu == null ? 0 : mtu.code();
    }

    private static String mtuStr(Mtu mtu) {
        return mtu == null ? "invalid MTU" : Integer.toString(mtu.bytes());
    }

    private static String widthStr(int width) {
        return switch (width) {
            case 1 -> "1";
            case 2 -> "4";
            case 4 -> "8";
            case 8 -> "12";
            case 16 -> "2";
            default -> "invalid width";
        };
    }

    private static String speedStr(int speed) {
        return switch (speed) {
            case 1 -> "2.5 Gbps";
            case 2 -> "5.0 Gbps";
            case 4, 8 -> "10.0 Gbps";
            case 16 -> "14.0 Gbps";
            case 32 -> "25.0 Gbps";
            case 64 -> "50.0 Gbps";
            case 128 -> "100.0 Gbps";
            default -> "invalid speed";
        };
    }

    private static String vlStr(int vlNum) {
        return switch (vlNum) {
            case 1 -> "1";
            case 2 -> "2";
            case 3 -> "4";
            case 4 -> "8";
            case 5 -> "15";
            default -> "invalid value";
        };
    }

    /** printf() onto the tool's stdout, with C's formatting (no locale). */
    static final class Printer {
        private final PrintStream out;

        Printer(PrintStream out) {
            this.out = out;
        }

        void printf(String format, Object... args) {
            out.print(String.format(Locale.ROOT, format, args));
        }
    }
}
