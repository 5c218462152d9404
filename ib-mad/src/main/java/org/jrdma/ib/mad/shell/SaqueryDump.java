package org.jrdma.ib.mad.shell;

import java.io.PrintStream;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.NodeRecord;
import org.jrdma.ib.mad.sa.PathRecord;

/**
 * {@code saquery}'s output, byte for byte as {@code saquery.c} prints records and {@code ibdiag_sa.c}'s
 * {@code sa_report_err} prints an SA error status.
 */
final class SaqueryDump {
    private static final String[] SA_ERR = {"SA_NO_ERROR", "SA_ERR_NO_RESOURCES", "SA_ERR_REQ_INVALID",
        "SA_ERR_NO_RECORDS", "SA_ERR_TOO_MANY_RECORDS", "SA_ERR_REQ_INVALID_GID",
        "SA_ERR_REQ_INSUFFICIENT_COMPONENTS", "SA_ERR_REQ_DENIED", "SA_ERR_STATUS_PRIO_SUGGESTED", "SA_ERR_UNKNOWN"};
    private static final String[] MAD_ERR = {"MAD No invalid fields", "MAD Bad version",
        "MAD Method specified is not supported", "MAD Method/Attribute combination is not supported", "MAD Reserved",
        "MAD Reserved", "MAD Reserved", "MAD Invalid value in Attribute field(s) or Attribute Modifier",
        "MAD UNKNOWN ERROR"};

    private SaqueryDump() {
    }

    /** {@code sa_report_err}: the line for a MAD status (SA status in the upper byte). */
    static String saError(int status) {
        int st = status & 0xff;
        String madErr = "";
        if (st != 0) {
            madErr = String.format(" (%s; %s; %s)", (st & 1) != 0 ? "BUSY" : "",
                    (st & 2) != 0 ? "Redirection Required" : "", MAD_ERR[Math.min(st >> 2, MAD_ERR.length - 1)]);
        }
        st = status >> 8;
        String saErr = st != 0 ? String.format(" SA(%s)", SA_ERR[Math.min(st & 0xff, SA_ERR.length - 1)]) : "";
        return String.format("ERROR: Query result returned 0x%04x, %s%s\n", status, madErr, saErr);
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

    /** {@code dump_multicast_member_record}: a member with its node's description. */
    static void dumpMemberOf(PrintStream out, MCMemberRecord m, String name) {
        out.printf("MCMemberRecord member dump:\n"
                + "\t\tMGID....................%s\n"
                + "\t\tMlid....................0x%X\n"
                + "\t\tPortGid.................%s\n"
                + "\t\tScopeState..............0x%X\n"
                + "\t\tProxyJoin...............0x%X\n"
                + "\t\tNodeDescription.........%s\n",
                gid(m.mgid), m.mlid, gid(m.portGid), m.scope << 4 | m.joinState, m.proxyJoin ? 0x80 : 0, name);
    }

    /** The one line of a member of the group {@code saquery -m <mlid>} asked for. */
    static void dumpPortGidOf(PrintStream out, MCMemberRecord m, String name) {
        out.printf("\t\tPortGid.................%s (%s)\n", gid(m.portGid), name);
    }
}
