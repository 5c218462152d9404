package org.jrdma.ib.mad.shell;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
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
 * prints it; SA errors as {@code sa_report_err}. Options are {@link SaqueryOptions}, the output {@link
 * SaqueryDump}; here the SA binding and one query per record type.
 */
final class Saquery extends DiagTool {
    private final IbCore core;
    private final SaClient sa;
    private IbDevice dev;
    private int port;
    private int timeout;

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
        SaqueryOptions o = SaqueryOptions.parse(prog, args, stderr);
        if (o == null) {
            return usage();
        }
        if (o.badTimeout != null) {
            return invalidTimeout(out, o.badTimeout);
        }
        timeout = o.timeout;
        if (!bind(o)) {
            return ibpanic("main", "Failed to bind to the SA");
        }
        try {
            if (o.srcDst != null && !srcToDst(o)) {
                return usage();
            }
            query(out, o);
        } catch (Failed f) {
            return f.status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
        return 0;
    }

    /** {@code sa_get_handle}: the CA port to ask, which must know an SM LID. */
    private boolean bind(SaqueryOptions o) {
        Object[] r = resolve(core, o.ca, o.caPort);
        if (r == null || smLid((IbDevice) r[0], (Integer) r[1]) == 0) {
            if (r != null) {
                ibwarn("sa_get_handle", "No SM/SA found on port " + ((IbDevice) r[0]).name() + ":" + r[1]);
            }
            return false;
        }
        dev = (IbDevice) r[0];
        port = (Integer) r[1];
        return true;
    }

    /** {@code --src-to-dst}: its two LIDs (or node descriptions); false if it is not "src:dst". */
    private boolean srcToDst(SaqueryOptions o) throws Failed, InterruptedException {
        String[] sd = o.srcDst.split(":", 2);
        if (sd.length < 2) {
            return false;
        }
        o.slid = sd[0].isEmpty() ? 0 : lidOf(sd[0]);
        o.dlid = sd[1].isEmpty() ? 0 : lidOf(sd[1]);
        return true;
    }

    private void query(PrintStream out, SaqueryOptions o) throws Failed, InterruptedException {
        String operand = o.operands.isEmpty() ? null : o.operands.get(0);
        switch (o.command) {
            case 'N' -> printNodeRecords(out, false, operand);
            case 'D' -> printNodeRecords(out, true, null);
            case 'm' -> printMembers(out, operand);
            case 'g' -> {
                for (byte[] b : table(MCMemberRecord.ATTR_ID, 0, null)) {
                    SaqueryDump.dumpGroup(out, MCMemberRecord.fromWire(b, 0));
                }
            }
            default -> {
                if (o.queryType == PathRecord.ATTR_ID) {
                    queryPaths(out, o);
                } else if (o.queryType == MCMemberRecord.ATTR_ID) {
                    queryMembers(out, o);
                } else {
                    queryNodes(out, operand);
                }
            }
        }
    }

    /** {@code query_path_records}: the paths matching the GIDs and LIDs given. */
    private void queryPaths(PrintStream out, SaqueryOptions o) throws Failed, InterruptedException {
        PathRecord pr = new PathRecord();
        long mask = 0;
        if (o.sgid != null) {
            pr.sgid = o.sgid;
            mask |= PathRecord.SGID;
        }
        if (o.dgid != null) {
            pr.dgid = o.dgid;
            mask |= PathRecord.DGID;
        }
        if (o.slid != 0) {
            pr.slid = o.slid;
            mask |= PathRecord.SLID;
        }
        if (o.dlid != 0) {
            pr.dlid = o.dlid;
            mask |= PathRecord.DLID;
        }
        for (byte[] b : table(PathRecord.ATTR_ID, mask, pr.toWire())) {
            SaqueryDump.dumpPath(out, b);
        }
    }

    /** {@code query_mcmember_records}: the members matching the MGID and MLID given. */
    private void queryMembers(PrintStream out, SaqueryOptions o) throws Failed, InterruptedException {
        MCMemberRecord mr = new MCMemberRecord();
        long mask = 0;
        if (o.mgid != null) {
            mr.mgid = o.mgid;
            mask |= MCMemberRecord.MGID;
        }
        if (o.mlid != 0) {
            mr.mlid = o.mlid;
            mask |= MCMemberRecord.MLID;
        }
        for (byte[] b : table(MCMemberRecord.ATTR_ID, mask, mr.toWire())) {
            SaqueryDump.dumpMember(out, MCMemberRecord.fromWire(b, 0));
        }
    }

    /** {@code query_node_records}: all, or the one of a LID or node description. */
    private void queryNodes(PrintStream out, String operand) throws Failed, InterruptedException {
        NodeRecord nr = new NodeRecord();
        long mask = 0;
        if (operand != null) {
            nr.lid = lidOf(operand);
            mask = nr.lid != 0 ? NodeRecord.LID : 0;
        }
        for (byte[] b : table(NodeRecord.ATTR_ID, mask, nr.toWire())) {
            SaqueryDump.dumpNode(out, NodeRecord.fromWire(b, 0));
        }
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
                stderr.append(SaqueryDump.saError(se.madStatus()));
                throw new Failed(5); // EIO
            }
            stderr.append("Query SA failed: Connection timed out\n");
            throw new Failed(110);
        } catch (TimeoutException e) {
            stderr.append("Query SA failed: Connection timed out\n");
            throw new Failed(110);
        }
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
                SaqueryDump.dumpNode(out, n);
            }
        }
    }

    /** {@code print_multicast_member_records}: every member with its node's name, or those of one MLID. */
    private void printMembers(PrintStream out, String requested) throws Failed, InterruptedException {
        List<byte[]> mcs = table(MCMemberRecord.ATTR_ID, 0, null);
        List<byte[]> nrs = table(NodeRecord.ATTR_ID, 0, null);
        for (byte[] b : mcs) {
            MCMemberRecord m = MCMemberRecord.fromWire(b, 0);
            String name = nodeNameOf(nrs, m);
            if (requested == null) {
                SaqueryDump.dumpMemberOf(out, m, name);
            } else if (mlidOf(requested) == m.mlid) {
                SaqueryDump.dumpPortGidOf(out, m, name);
            }
        }
    }

    private static String nodeNameOf(List<byte[]> nodeRecords, MCMemberRecord m) {
        for (byte[] nb : nodeRecords) {
            NodeRecord n = NodeRecord.fromWire(nb, 0);
            if (n.portGuid == m.portGid.interfaceId()) {
                return n.nodeDescription;
            }
        }
        return "<unknown>";
    }

    private static int mlidOf(String s) {
        try {
            return Integer.decode(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
