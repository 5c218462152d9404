package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Rd.cmd;

import java.util.List;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.shell.Rd.FilterDef;

/**
 * {@code rdma resource} (iproute2 6.1 {@code rdma/res*.c}): the per-device summary and the PD, CQ,
 * QP, MR and SRQ lists, with iproute2's filters. Every jrdma resource belongs to an in-JVM client,
 * so it is shown as the kernel shows a kernel resource: no pid, the owner's name in brackets as
 * {@code comm}, no pdn for QPs and MRs, keys shown (as to root).
 * <p>{@link ResourceInfo} carries only a one-line summary; this reads the fields the summary has
 * (QP type, state and port; CQE; users; MR keys and length; SRQ pdn). What it lacks is left out:
 * a QP's {@code rqpn}, {@code rq-psn}, {@code sq-psn} and {@code path-mig-state}, a PD's
 * {@code local_dma_lkey}, an SRQ's QP list.
 */
final class RdmaRes {
    private RdmaRes() {
    }

    private static FilterDef num(String name) {
        return new FilterDef(name, true);
    }

    private static FilterDef str(String name) {
        return new FilterDef(name, false);
    }

    // res.h's valid filters, in iproute2's order (the first prefix match wins)
    private static final FilterDef[] PD_FILTERS = {str("dev"), num("users"), num("pid"), num("ctxn"), num("pdn"),
        num("ctxn")};
    private static final FilterDef[] MR_FILTERS = {str("dev"), num("rkey"), num("lkey"), num("mrlen"), num("pid"),
        num("mrn"), num("pdn")};
    private static final FilterDef[] CQ_FILTERS = {str("dev"), num("users"), str("poll-ctx"), num("pid"),
        num("cqn"), num("ctxn")};
    private static final FilterDef[] CM_ID_FILTERS = {str("link"), num("lqpn"), str("qp-type"), str("state"),
        str("ps"), str("dev-type"), str("transport-type"), num("pid"), str("src-addr"), num("src-port"),
        str("dst-addr"), num("dst-port"), num("cm-idn")};
    private static final FilterDef[] QP_FILTERS = {str("link"), num("lqpn"), num("rqpn"), num("pid"),
        num("sq-psn"), num("rq-psn"), str("type"), str("path-mig-state"), str("state"), num("pdn")};
    private static final FilterDef[] CTX_FILTERS = {str("dev"), num("pid"), num("ctxn")};
    private static final FilterDef[] SRQ_FILTERS = {str("dev"), num("pid"), num("srqn"), str("type"), num("pdn"),
        num("cqn"), num("lqpn")};

    static int cmdRes(Rd rd) {
        return rd.execCmd("resource command", RdmaRes::resShow,
                cmd("show", RdmaRes::resShow),
                cmd("list", RdmaRes::resShow),
                cmd("help", RdmaRes::resHelp));
    }

    static int resHelp(Rd rd) {
        rd.prOut("Usage: %s resource\n", Rd.FILENAME);
        rd.prOut("          resource show [DEV]\n");
        rd.prOut("          resource show [qp|cm_id|pd|mr|cq|ctx|srq]\n");
        rd.prOut("          resource show qp link [DEV/PORT]\n");
        rd.prOut("          resource show qp link [DEV/PORT] [FILTER-NAME FILTER-VALUE]\n");
        rd.prOut("          resource show cm_id link [DEV/PORT]\n");
        rd.prOut("          resource show cm_id link [DEV/PORT] [FILTER-NAME FILTER-VALUE]\n");
        rd.prOut("          resource show cq link [DEV/PORT]\n");
        rd.prOut("          resource show cq link [DEV/PORT] [FILTER-NAME FILTER-VALUE]\n");
        rd.prOut("          resource show pd dev [DEV]\n");
        rd.prOut("          resource show pd dev [DEV] [FILTER-NAME FILTER-VALUE]\n");
        rd.prOut("          resource show mr dev [DEV]\n");
        rd.prOut("          resource show mr dev [DEV] [FILTER-NAME FILTER-VALUE]\n");
        rd.prOut("          resource show ctx dev [DEV]\n");
        rd.prOut("          resource show ctx dev [DEV] [FILTER-NAME FILTER-VALUE]\n");
        rd.prOut("          resource show srq dev [DEV]\n");
        rd.prOut("          resource show srq dev [DEV] [FILTER-NAME FILTER-VALUE]\n");
        return 0;
    }

    private static int resShow(Rd rd) {
        // "rdma res show DEV" is the summary of one device
        if (rd.argc() == 1 && rd.devMapLookup(false) != null) {
            return rd.execDev(RdmaRes::summary);
        }
        return rd.execCmd("parameter", r -> resFunc(r, null, true, RdmaRes::summary),
                cmd("qp", r -> resFunc(r, QP_FILTERS, false, RdmaRes::qps)),
                cmd("cm_id", r -> resFunc(r, CM_ID_FILTERS, false, x -> 0)), // jrdma has no RDMA CM yet
                cmd("cq", r -> resFunc(r, CQ_FILTERS, true, RdmaRes::cqs)),
                cmd("mr", r -> resFunc(r, MR_FILTERS, true, RdmaRes::mrs)),
                cmd("pd", r -> resFunc(r, PD_FILTERS, true, RdmaRes::pds)),
                cmd("ctx", r -> resFunc(r, CTX_FILTERS, true, x -> 0)), // no user contexts on the JVM
                cmd("srq", r -> resFunc(r, SRQ_FILTERS, true, RdmaRes::srqs)));
    }

    /** res.h's RES_FUNC(): filters, then per device ({@code perDevice}) or per device and port. */
    private static int resFunc(Rd rd, FilterDef[] valid, boolean perDevice, Rd.Cmd lines) {
        int ret = rd.buildFilter(valid);
        if (ret != 0) {
            return ret;
        }
        if (valid != null) {
            ret = rd.setArgToDevname();
            if (ret != 0) {
                return ret;
            }
        }
        Rd.Cmd guarded = r -> {
            try {
                return lines.run(r);
            } catch (VerbsException e) {
                return r.kernelError(e);
            }
        };
        return perDevice ? rd.execDev(guarded) : rd.execLink(guarded, false);
    }

    /** res_no_args_parse_cb(): {@code 0: mlx0: pd 1 cq 2 qp 1 cm_id 0 mr 0 ctx 0 srq 0 }. */
    private static int summary(Rd rd) {
        List<ResourceInfo> all;
        try {
            all = rd.dev.resources();
        } catch (VerbsException e) {
            return rd.kernelError(e);
        }
        StringBuilder sb = new StringBuilder();
        sb.append(rd.dev.index()).append(": ").append(rd.dev.name()).append(": ");
        // the kernel's restrack names, in enum rdma_restrack_type order
        sb.append("pd ").append(count(all, ResourceType.PD)).append(' ');
        sb.append("cq ").append(count(all, ResourceType.CQ)).append(' ');
        sb.append("qp ").append(count(all, ResourceType.QP)).append(' ');
        sb.append("cm_id 0 ");
        sb.append("mr ").append(count(all, ResourceType.MR)).append(' ');
        sb.append("ctx 0 ");
        sb.append("srq ").append(count(all, ResourceType.SRQ)).append(' ');
        sb.append('\n');
        rd.prOut("%s", sb);
        return 0;
    }

    private static long count(List<ResourceInfo> all, ResourceType type) {
        return all.stream().filter(r -> r.type() == type).count();
    }

    /** res_qp_line(), for the QPs bound to rd.portIdx (0: not bound to a port yet). */
    private static int qps(Rd rd) {
        for (ResourceInfo r : rd.dev.resources()) {
            if (r.type() != ResourceType.QP) {
                continue;
            }
            Summary s = new Summary(r.summary());
            long port = s.number("port", 0);
            if (port != rd.portIdx) {
                continue;
            }
            long lqpn = r.id() & 0xffffffffL;
            String type = s.word(0);
            String state = s.word(1);
            if (rd.isFiltered("lqpn", lqpn, true)
                    || rd.isFiltered("pdn", 0, false)
                    || rd.isFiltered("rqpn", 0, false)
                    || rd.isFiltered("rq-psn", 0, false)
                    || rd.isFiltered("sq-psn", 0, false)
                    || rd.isStringFiltered("path-mig-state", "MIGRATED")
                    || rd.isStringFiltered("type", type)
                    || rd.isStringFiltered("state", state)
                    || rd.isFiltered("pid", 0, false)) {
                continue;
            }
            StringBuilder sb = new StringBuilder();
            sb.append("link ").append(rd.dev.name()).append('/');
            sb.append(port == 0 ? "-" : Long.toString(port)).append(' ');
            sb.append("lqpn ").append(lqpn).append(' ');
            sb.append("type ").append(type).append(' ');
            sb.append("state ").append(state).append(' ');
            sb.append(comm(r)).append('\n');
            rd.prOut("%s", sb);
        }
        return 0;
    }

    /** res_cq_line(). */
    private static int cqs(Rd rd) {
        for (ResourceInfo r : rd.dev.resources()) {
            if (r.type() != ResourceType.CQ) {
                continue;
            }
            Summary s = new Summary(r.summary());
            long users = s.number("users", 0);
            long cqn = r.id() & 0xffffffffL;
            // a kernel CQ made with ib_create_cq() has poll_ctx 0, which iproute2 names DIRECT
            if (rd.isFiltered("users", users, true)
                    || rd.isStringFiltered("poll-ctx", "DIRECT")
                    || rd.isFiltered("pid", 0, false)
                    || rd.isFiltered("cqn", cqn, true)
                    || rd.isFiltered("ctxn", 0, false)) {
                continue;
            }
            StringBuilder sb = new StringBuilder();
            sb.append("dev ").append(rd.dev.name()).append(' ');
            sb.append("cqn ").append(cqn).append(' ');
            sb.append("cqe ").append(s.number("cqe", 0)).append(' ');
            sb.append("users ").append(users).append(' ');
            sb.append("poll-ctx DIRECT ");
            sb.append("adaptive-moderation off ");
            sb.append(comm(r)).append('\n');
            rd.prOut("%s", sb);
        }
        return 0;
    }

    /** res_pd_line(). */
    private static int pds(Rd rd) {
        for (ResourceInfo r : rd.dev.resources()) {
            if (r.type() != ResourceType.PD) {
                continue;
            }
            Summary s = new Summary(r.summary());
            long users = s.number("users", 0);
            long pdn = r.id() & 0xffffffffL;
            if (rd.isFiltered("users", users, true)
                    || rd.isFiltered("pid", 0, false)
                    || rd.isFiltered("ctxn", 0, false)
                    || rd.isFiltered("pdn", pdn, true)) {
                continue;
            }
            StringBuilder sb = new StringBuilder();
            sb.append("dev ").append(rd.dev.name()).append(' ');
            sb.append("pdn ").append(pdn).append(' ');
            sb.append("users ").append(users).append(' ');
            sb.append(comm(r)).append('\n');
            rd.prOut("%s", sb);
        }
        return 0;
    }

    /** res_mr_line(): the rkey and lkey filters are accepted but, as in iproute2, never applied. */
    private static int mrs(Rd rd) {
        for (ResourceInfo r : rd.dev.resources()) {
            if (r.type() != ResourceType.MR) {
                continue;
            }
            Summary s = new Summary(r.summary());
            long mrlen = s.number("length", 0);
            long mrn = r.id() & 0xffffffffL;
            if (rd.isFiltered("mrlen", mrlen, true)
                    || rd.isFiltered("pid", 0, false)
                    || rd.isFiltered("mrn", mrn, true)
                    || rd.isFiltered("pdn", 0, false)) {
                continue;
            }
            StringBuilder sb = new StringBuilder();
            sb.append("dev ").append(rd.dev.name()).append(' ');
            sb.append("mrn ").append(mrn).append(' ');
            if (s.has("rkey")) {
                sb.append(String.format("rkey 0x%x ", s.number("rkey", 0)));
            }
            if (s.has("lkey")) {
                sb.append(String.format("lkey 0x%x ", s.number("lkey", 0)));
            }
            sb.append("mrlen ").append(mrlen).append(' ');
            sb.append(comm(r)).append('\n');
            rd.prOut("%s", sb);
        }
        return 0;
    }

    /** res_srq_line(). */
    private static int srqs(Rd rd) {
        for (ResourceInfo r : rd.dev.resources()) {
            if (r.type() != ResourceType.SRQ) {
                continue;
            }
            Summary s = new Summary(r.summary());
            long srqn = r.id() & 0xffffffffL;
            boolean hasPdn = s.has("pdn");
            long pdn = s.number("pdn", 0);
            if (rd.isFiltered("pid", 0, false)
                    || rd.isFiltered("srqn", srqn, true)
                    || rd.isStringFiltered("type", "BASIC")
                    || rd.isFiltered("pdn", pdn, hasPdn)
                    || rd.isFiltered("cqn", 0, false)
                    // get_srq_qps() with no QP list: an lqpn filter hides the SRQ
                    || rd.hasFilterKey("lqpn")) {
                continue;
            }
            StringBuilder sb = new StringBuilder();
            sb.append("dev ").append(rd.dev.name()).append(' ');
            sb.append("srqn ").append(srqn).append(' ');
            sb.append("type BASIC ");
            if (hasPdn) {
                sb.append("pdn ").append(pdn).append(' ');
            }
            sb.append(comm(r)).append('\n');
            rd.prOut("%s", sb);
        }
        return 0;
    }

    /** print_comm() for a kernel resource: {@code [name]}, cut to 17 characters as snprintf(tmp, 18). */
    private static String comm(ResourceInfo r) {
        String c = "[" + (r.owner() == null ? "-" : r.owner()) + "]";
        return "comm " + (c.length() > 17 ? c.substring(0, 17) : c) + " ";
    }

    /**
     * The summary ib-core gives a resource: leading words (a QP's type and state), then
     * {@code key value} pairs ({@code pdn 1 scq 2 port 1}).
     */
    private static final class Summary {
        private final String[] words;

        Summary(String text) {
            this.words = text == null || text.isBlank() ? new String[0] : text.trim().split("\\s+");
        }

        String word(int i) {
            return i < words.length ? words[i] : "UNKNOWN";
        }

        boolean has(String key) {
            return valueOf(key) != null;
        }

        long number(String key, long dflt) {
            String v = valueOf(key);
            if (v == null) {
                return dflt;
            }
            try {
                return v.startsWith("0x") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseLong(v);
            } catch (NumberFormatException e) {
                return dflt;
            }
        }

        private String valueOf(String key) {
            for (int i = 0; i + 1 < words.length; i++) {
                if (words[i].equals(key)) {
                    return words[i + 1];
                }
            }
            return null;
        }
    }
}
