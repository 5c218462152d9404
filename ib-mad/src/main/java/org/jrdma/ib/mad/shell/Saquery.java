package org.jrdma.ib.mad.shell;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.NodeRecord;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ib.mad.sa.SaException;

/**
 * infiniband-diags' {@code saquery}: NodeRecords by default ({@code NodeRecord}/{@code NR [lid]},
 * {@code -N}, {@code -D}), PathRecords ({@code -p}, {@code PR}, {@code --src-to-dst}, {@code
 * --sgid-to-dgid}, {@code --slid/--dlid/--sgid/--dgid}), MCMemberRecords ({@code MCMR} dumps, {@code -m}
 * members with node names, {@code -g} groups; {@code --mgid/--mlid}), each printed as {@code saquery.c}
 * prints it; SA errors as {@code sa_report_err}.
 */
final class Saquery extends DiagTool {
    private static final String[] SA_ERR = {"SA_NO_ERROR", "SA_ERR_NO_RESOURCES", "SA_ERR_REQ_INVALID",
        "SA_ERR_NO_RECORDS", "SA_ERR_TOO_MANY_RECORDS", "SA_ERR_REQ_INVALID_GID",
        "SA_ERR_REQ_INSUFFICIENT_COMPONENTS", "SA_ERR_REQ_DENIED", "SA_ERR_STATUS_PRIO_SUGGESTED", "SA_ERR_UNKNOWN"};
    private static final String[] MAD_ERR = {"MAD No invalid fields", "MAD Bad version",
        "MAD Method specified is not supported", "MAD Method/Attribute combination is not supported", "MAD Reserved",
        "MAD Reserved", "MAD Reserved", "MAD Invalid value in Attribute field(s) or Attribute Modifier",
        "MAD UNKNOWN ERROR"};

    private final IbCore core;
    private final SaClient sa;
    private IbDevice dev;
    private int port;
    private int timeout = 1000;

    Saquery(IbCore core, SaClient sa) {
        super("saquery");
        this.core = core;
        this.sa = sa;
    }

    /** A failed query, already reported: its exit status. */
    private static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;

        Failed(int status) {
            super(null, null, false, false);
            this.status = status;
        }
    }

    @Override
    int run(PrintStream out, String... args) {
        char command = 'Q';
        int queryType = 0;
        String ca = null;
        int caPort = 0;
        int slid = 0;
        int dlid = 0;
        int mlid = 0;
        String srcDst = null;
        Gid sgid = null;
        Gid dgid = null;
        Gid mgid = null;
        Getopt g = new Getopt(prog, args, "pNDmgC:P:t:", new Getopt.LongOption[] {
            new Getopt.LongOption("list", Getopt.NO_ARGUMENT, 'D'),
            new Getopt.LongOption("src-to-dst", Getopt.REQUIRED_ARGUMENT, (char) 1),
            new Getopt.LongOption("sgid-to-dgid", Getopt.REQUIRED_ARGUMENT, (char) 2),
            new Getopt.LongOption("slid", Getopt.REQUIRED_ARGUMENT, (char) 5),
            new Getopt.LongOption("dlid", Getopt.REQUIRED_ARGUMENT, (char) 6),
            new Getopt.LongOption("mlid", Getopt.REQUIRED_ARGUMENT, (char) 7),
            new Getopt.LongOption("sgid", Getopt.REQUIRED_ARGUMENT, (char) 14),
            new Getopt.LongOption("dgid", Getopt.REQUIRED_ARGUMENT, (char) 15),
            new Getopt.LongOption("mgid", Getopt.REQUIRED_ARGUMENT, (char) 17),
            new Getopt.LongOption("Ca", Getopt.REQUIRED_ARGUMENT, 'C'),
            new Getopt.LongOption("Port", Getopt.REQUIRED_ARGUMENT, 'P'),
            new Getopt.LongOption("timeout", Getopt.REQUIRED_ARGUMENT, 't')}, stderr);
        try {
            for (int c; (c = g.next()) != -1; ) {
                switch (c) {
                    case 1 -> {
                        srcDst = g.optarg;
                        queryType = PathRecord.ATTR_ID;
                    }
                    case 2 -> {
                        String[] sd = g.optarg.split("-", 2);
                        if (sd.length < 2) {
                            return usage();
                        }
                        sgid = Gid.parse(sd[0]);
                        dgid = Gid.parse(sd[1]);
                        queryType = PathRecord.ATTR_ID;
                    }
                    case 'p' -> queryType = PathRecord.ATTR_ID;
                    case 'N' -> command = 'N';
                    case 'D' -> command = 'D';
                    case 'm' -> command = 'm';
                    case 'g' -> command = 'g';
                    case 'C' -> ca = g.optarg;
                    case 'P' -> caPort = Integer.decode(g.optarg);
                    case 't' -> timeout = Integer.decode(g.optarg);
                    case 5 -> slid = Integer.decode(g.optarg) & 0xffff;
                    case 6 -> dlid = Integer.decode(g.optarg) & 0xffff;
                    case 7 -> mlid = Integer.decode(g.optarg) & 0xffff;
                    case 14 -> sgid = Gid.parse(g.optarg);
                    case 15 -> dgid = Gid.parse(g.optarg);
                    case 17 -> mgid = Gid.parse(g.optarg);
                    default -> {
                        return usage();
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            return usage();
        }
        List<String> ops = new java.util.ArrayList<>(g.operands());
        if (queryType == 0 && command == 'Q') {
            queryType = NodeRecord.ATTR_ID;
            if (!ops.isEmpty()) {
                String n = ops.get(0).toLowerCase(java.util.Locale.ROOT);
                switch (n) {
                    case "noderecord", "nr" -> ops.remove(0);
                    case "pathrecord", "pr" -> {
                        queryType = PathRecord.ATTR_ID;
                        ops.remove(0);
                    }
                    case "mcmemberrecord", "mcmr" -> {
                        queryType = MCMemberRecord.ATTR_ID;
                        ops.remove(0);
                    }
                    default -> {
                    }
                }
            }
        }
        Object[] r = resolve(core, ca, caPort);
        if (r == null || smLid((IbDevice) r[0], (Integer) r[1]) == 0) {
            if (r != null) {
                ibwarn("sa_get_handle", "No SM/SA found on port " + ((IbDevice) r[0]).name() + ":" + r[1]);
            }
            return ibpanic("main", "Failed to bind to the SA");
        }
        dev = (IbDevice) r[0];
        port = (Integer) r[1];
        try {
            if (srcDst != null) {
                String[] sd = srcDst.split(":", 2);
                if (sd.length < 2) {
                    return usage();
                }
                slid = sd[0].isEmpty() ? 0 : lidOf(sd[0]);
                dlid = sd[1].isEmpty() ? 0 : lidOf(sd[1]);
            }
            switch (command) {
                case 'N' -> printNodeRecords(out, false, ops.isEmpty() ? null : ops.get(0));
                case 'D' -> printNodeRecords(out, true, null);
                case 'm' -> printMembers(out, ops.isEmpty() ? null : ops.get(0));
                case 'g' -> {
                    for (byte[] b : table(MCMemberRecord.ATTR_ID, 0, null)) {
                        dumpGroup(out, MCMemberRecord.fromWire(b, 0));
                    }
                }
                default -> {
                    if (queryType == PathRecord.ATTR_ID) {
                        PathRecord pr = new PathRecord();
                        long mask = 0;
                        if (sgid != null) {
                            pr.sgid = sgid;
                            mask |= PathRecord.SGID;
                        }
                        if (dgid != null) {
                            pr.dgid = dgid;
                            mask |= PathRecord.DGID;
                        }
                        if (slid != 0) {
                            pr.slid = slid;
                            mask |= PathRecord.SLID;
                        }
                        if (dlid != 0) {
                            pr.dlid = dlid;
                            mask |= PathRecord.DLID;
                        }
                        for (byte[] b : table(PathRecord.ATTR_ID, mask, pr.toWire())) {
                            dumpPath(out, b);
                        }
                    } else if (queryType == MCMemberRecord.ATTR_ID) {
                        MCMemberRecord mr = new MCMemberRecord();
                        long mask = 0;
                        if (mgid != null) {
                            mr.mgid = mgid;
                            mask |= MCMemberRecord.MGID;
                        }
                        if (mlid != 0) {
                            mr.mlid = mlid;
                            mask |= MCMemberRecord.MLID;
                        }
                        for (byte[] b : table(MCMemberRecord.ATTR_ID, mask, mr.toWire())) {
                            dumpMember(out, MCMemberRecord.fromWire(b, 0));
                        }
                    } else {
                        NodeRecord nr = new NodeRecord();
                        long mask = 0;
                        if (!ops.isEmpty()) {
                            nr.lid = lidOf(ops.get(0));
                            mask = nr.lid != 0 ? NodeRecord.LID : 0;
                        }
                        for (byte[] b : table(NodeRecord.ATTR_ID, mask, nr.toWire())) {
                            dumpNode(out, NodeRecord.fromWire(b, 0));
                        }
                    }
                }
            }
        } catch (Failed f) {
            return f.status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
        return 0;
    }

    private int usage() {
        stderr.append("Usage: saquery [options] [query-name] [<name> | <lid> | <guid>]\n");
        return 255;
    }

    /** A LID, or the LID of the CA whose node description is {@code s} ({@code get_lid}). */
    private int lidOf(String s) throws Failed, InterruptedException {
        try {
            return Integer.decode(s);
        } catch (NumberFormatException e) {
            for (byte[] b : table(NodeRecord.ATTR_ID, 0, null)) {
                NodeRecord n = NodeRecord.fromWire(b, 0);
                if (n.nodeDescription.equals(s)) {
                    return n.lid;
                }
            }
            return 0;
        }
    }

    /** {@code get_any_records}: a GetTable, or a report of why it failed. */
    private List<byte[]> table(int attr, long mask, byte[] rec) throws Failed, InterruptedException {
        try {
            return sa.query(dev, port, Mad.METHOD_GET_TABLE, attr, 0, mask, rec, timeout)
                    .get(timeout * 3L + 5000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SaException se && se.madStatus() >= 0) {
                reportErr(se.madStatus());
                throw new Failed(5); // EIO
            }
            stderr.append("Query SA failed: Connection timed out\n");
            throw new Failed(110);
        } catch (TimeoutException e) {
            stderr.append("Query SA failed: Connection timed out\n");
            throw new Failed(110);
        }
    }

    /** {@code sa_report_err}. */
    private void reportErr(int status) {
        int st = status & 0xff;
        String madErr = "";
        if (st != 0) {
            madErr = String.format(" (%s; %s; %s)", (st & 1) != 0 ? "BUSY" : "",
                    (st & 2) != 0 ? "Redirection Required" : "", MAD_ERR[Math.min(st >> 2, MAD_ERR.length - 1)]);
        }
        st = status >> 8;
        String saErr = st != 0 ? String.format(" SA(%s)", SA_ERR[Math.min(st & 0xff, SA_ERR.length - 1)]) : "";
        stderr.append(String.format("ERROR: Query result returned 0x%04x, %s%s\n", status, madErr, saErr));
    }

    static String gid(Gid g) {
        return g.toCompressedString();
    }

    static String nodeTypeStr(int t) {
        return switch (t) {
            case 1 -> "Channel Adapter"; case 2 -> "Switch"; case 3 -> "Router"; case 4 -> "Subnet Management";
            default -> "UNKNOWN";
        };
    }

    /** {@code dump_node_record}. */
    static void dumpNode(PrintStream out, NodeRecord n) {
        out.printf("NodeRecord dump:\n"
                + "\t\tlid.....................%d\n"
                + "\t\treserved................0x%X\n"
                + "\t\tbase_version............0x%X\n"
                + "\t\tclass_version...........0x%X\n"
                + "\t\tnode_type...............%s\n"
                + "\t\tnum_ports...............%d\n"
                + "\t\tsys_guid................0x%016x\n"
                + "\t\tnode_guid...............0x%016x\n"
                + "\t\tport_guid...............0x%016x\n"
                + "\t\tpartition_cap...........0x%X\n"
                + "\t\tdevice_id...............0x%X\n"
                + "\t\trevision................0x%X\n"
                + "\t\tport_num................%d\n"
                + "\t\tvendor_id...............0x%X\n"
                + "\t\tNodeDescription.........%s\n",
                n.lid, 0, n.baseVersion, n.classVersion, nodeTypeStr(n.nodeType), n.numPorts, n.sysImageGuid,
                n.nodeGuid, n.portGuid, n.partitionCap, n.deviceId, n.revision, n.localPortNum, n.vendorId,
                n.nodeDescription);
    }

    private void printNodeRecords(PrintStream out, boolean desc, String name) throws Failed, InterruptedException {
        List<byte[]> all = table(NodeRecord.ATTR_ID, 0, null);
        if (desc) {
            out.printf("   LID \"name\"\n");
            out.printf("================\n");
        }
        for (byte[] b : all) {
            NodeRecord n = NodeRecord.fromWire(b, 0);
            if (desc) {
                if (n.nodeType == 1) {
                    out.printf("%6d  \"%s\"\n", n.lid, n.nodeDescription);
                }
            } else if (name == null || name.equals(n.nodeDescription)) {
                dumpNode(out, n);
            }
        }
    }

    /** {@code dump_path_record}. */
    static void dumpPath(PrintStream out, byte[] b) {
        PathRecord p = PathRecord.fromWire(b, 0);
        long hopFlow = (b[44] & 0xffL) << 24 | (b[45] & 0xff) << 16 | (b[46] & 0xff) << 8 | b[47] & 0xff;
        out.printf("PathRecord dump:\n"
                + "\t\tservice_id..............0x%016x\n"
                + "\t\tdgid....................%s\n"
                + "\t\tsgid....................%s\n"
                + "\t\tdlid....................%d\n"
                + "\t\tslid....................%d\n"
                + "\t\thop_flow_raw............0x%X\n"
                + "\t\ttclass..................0x%X\n"
                + "\t\tnum_path_revers.........0x%X\n"
                + "\t\tpkey....................0x%X\n"
                + "\t\tqos_class...............0x%X\n"
                + "\t\tsl......................0x%X\n"
                + "\t\tmtu.....................0x%X\n"
                + "\t\trate....................0x%X\n"
                + "\t\tpkt_life................0x%X\n"
                + "\t\tpreference..............0x%X\n"
                + "\t\tresv2...................0x%02X%02X%02X%02X%02X%02X\n",
                p.serviceId, gid(p.dgid), gid(p.sgid), p.dlid, p.slid, hopFlow, p.trafficClass, b[49] & 0xff, p.pkey,
                p.qosClass, p.sl, b[54] & 0xff, b[55] & 0xff, b[56] & 0xff, p.preference, b[58], b[59], b[60], b[61],
                b[62], b[63]);
    }

    /** {@code dump_one_mcmember_record}. */
    static void dumpMember(PrintStream out, MCMemberRecord m) {
        out.printf("MCMember Record dump:\n"
                + "\t\tMGID....................%s\n"
                + "\t\tPortGid.................%s\n"
                + "\t\tqkey....................0x%x\n"
                + "\t\tmlid....................0x%x\n"
                + "\t\tmtu.....................0x%x\n"
                + "\t\tTClass..................0x%x\n"
                + "\t\tpkey....................0x%x\n"
                + "\t\trate....................0x%x\n"
                + "\t\tpkt_life................0x%x\n"
                + "\t\tSL......................0x%x\n"
                + "\t\tFlowLabel...............0x%x\n"
                + "\t\tHopLimit................0x%x\n"
                + "\t\tScope...................0x%x\n"
                + "\t\tJoinState...............0x%x\n"
                + "\t\tProxyJoin...............0x%x\n",
                gid(m.mgid), gid(m.portGid), m.qkey, m.mlid, m.mtuSelector << 6 | m.mtu, m.trafficClass, m.pkey,
                m.rateSelector << 6 | m.rate, m.packetLifeTimeSelector << 6 | m.packetLifeTime, m.sl, m.flowLabel,
                m.hopLimit, m.scope, m.joinState, m.proxyJoin ? 0x80 : 0);
    }

    /** {@code dump_multicast_group_record}. */
    static void dumpGroup(PrintStream out, MCMemberRecord m) {
        out.printf("MCMemberRecord group dump:\n"
                + "\t\tMGID....................%s\n"
                + "\t\tMlid....................0x%X\n"
                + "\t\tMtu.....................0x%X\n"
                + "\t\tpkey....................0x%X\n"
                + "\t\tRate....................0x%X\n"
                + "\t\tSL......................0x%X\n",
                gid(m.mgid), m.mlid, m.mtuSelector << 6 | m.mtu, m.pkey, m.rateSelector << 6 | m.rate, m.sl);
    }

    /** {@code print_multicast_member_records} / {@code dump_multicast_member_record}. */
    private void printMembers(PrintStream out, String requested) throws Failed, InterruptedException {
        List<byte[]> mcs = table(MCMemberRecord.ATTR_ID, 0, null);
        List<byte[]> nrs = table(NodeRecord.ATTR_ID, 0, null);
        for (byte[] b : mcs) {
            MCMemberRecord m = MCMemberRecord.fromWire(b, 0);
            String name = "<unknown>";
            for (byte[] nb : nrs) {
                NodeRecord n = NodeRecord.fromWire(nb, 0);
                if (n.portGuid == m.portGid.interfaceId()) {
                    name = n.nodeDescription;
                    break;
                }
            }
            if (requested != null) {
                int want;
                try {
                    want = Integer.decode(requested);
                } catch (NumberFormatException e) {
                    want = 0;
                }
                if (want == m.mlid) {
                    out.printf("\t\tPortGid.................%s (%s)\n", gid(m.portGid), name);
                }
            } else {
                out.printf("MCMemberRecord member dump:\n"
                        + "\t\tMGID....................%s\n"
                        + "\t\tMlid....................0x%X\n"
                        + "\t\tPortGid.................%s\n"
                        + "\t\tScopeState..............0x%X\n"
                        + "\t\tProxyJoin...............0x%X\n"
                        + "\t\tNodeDescription.........%s\n",
                        gid(m.mgid), m.mlid, gid(m.portGid), m.scope << 4 | m.joinState, m.proxyJoin ? 0x80 : 0, name);
            }
        }
    }
}
