package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Shell.addMlx;
import static org.jrdma.ib.core.shell.Shell.addRxe;
import static org.jrdma.ib.core.shell.Shell.client;
import static org.jrdma.ib.core.shell.Shell.rdma;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqInitAttr;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * iproute2 6.1 rdma/res*.c over ib-core's restrack. On mlx0 the client "ulp" owns a PD, a CQ, an
 * RC QP in RTS on port 1 (QPN 17), an RC QP still in RESET (QPN 18, no port yet), an MR and an SRQ.
 */
class RdmaResTest {
    final IbCore core = IbCore.newInstance();
    final IbClient ulp = client("ulp");

    @BeforeEach
    void resources() {
        IbDevice mlx = addMlx(core);
        addRxe(core);
        ProtectionDomain pd = mlx.allocPd(ulp);
        CompletionQueue cq = mlx.createCq(ulp, new CqInitAttr().cqe(16));
        QueuePair rts = rcQp(pd, cq);
        rts.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(Access.REMOTE_WRITE));
        rts.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(1).dlid(2)).pathMtu(Mtu.MTU_1024)
                .destQpNum(0x40).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12));
        rts.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1));
        rcQp(pd, cq);
        pd.regMr(ByteBuffer.allocate(4096), Access.LOCAL_WRITE);
        pd.createSrq(new SrqInitAttr().attr(new SrqAttr().maxWr(8)));
    }

    static QueuePair rcQp(ProtectionDomain pd, CompletionQueue cq) {
        return pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1)));
    }

    static final String SUMMARY_MLX0 = "0: mlx0: pd 1 cq 1 qp 2 cm_id 0 mr 1 ctx 0 srq 1 \n";
    static final String SUMMARY_RXE0 = "1: rxe0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 srq 0 \n";
    static final String QP_RESET = "link mlx0/- lqpn 18 type RC state RESET comm [ulp] \n";
    static final String QP_RTS = "link mlx0/1 lqpn 17 type RC state RTS comm [ulp] \n";

    @Test
    void summaryPerDevice() {
        rdma(core, "resource").is(0, SUMMARY_MLX0 + SUMMARY_RXE0, "");
        rdma(core, "res", "show").is(0, SUMMARY_MLX0 + SUMMARY_RXE0, "");
        rdma(core, "r", "list").is(0, SUMMARY_MLX0 + SUMMARY_RXE0, "");
        rdma(core, "res", "show", "rxe0").is(0, SUMMARY_RXE0, "");
        rdma(core, "res", "show", "foo").is(0, "", "Unknown parameter 'foo'.\n");
    }

    @Test
    void qpsGroupedByPortUnboundFirst() {
        rdma(core, "res", "show", "qp").is(0, QP_RESET + QP_RTS, "");
        rdma(core, "res", "show", "qp", "link", "mlx0").is(0, QP_RESET + QP_RTS, "");
        rdma(core, "res", "show", "qp", "link", "mlx0/1").is(0, QP_RTS, "");
        rdma(core, "res", "show", "qp", "link", "mlx0/-").is(0, QP_RESET, "");
        rdma(core, "res", "show", "qp", "link", "mlx0/2").is(0, "", "");
        rdma(core, "res", "show", "qp", "link", "rxe0").is(0, "", "");
        rdma(core, "res", "show", "qp", "link", "foo/1").is(1, "", "Wrong device name\n");
        rdma(core, "res", "show", "qp", "link", "mlx0/3").is(1, "", "Wrong device name\n");
    }

    @Test
    void qpFilters() {
        rdma(core, "res", "show", "qp", "lqpn", "18").is(0, QP_RESET, "");
        rdma(core, "res", "show", "qp", "lqpn", "10-20").is(0, QP_RESET + QP_RTS, "");
        rdma(core, "res", "show", "qp", "lqpn", "1,17").is(0, QP_RTS, "");
        rdma(core, "res", "show", "qp", "state", "RTS").is(0, QP_RTS, "");
        rdma(core, "res", "show", "qp", "state", "err,reset").is(0, QP_RESET, "");
        rdma(core, "res", "show", "qp", "type", "UD").is(0, "", "");
        rdma(core, "res", "show", "qp", "link", "mlx0", "type", "rc", "state", "rts").is(0, QP_RTS, "");
        // kernel QPs carry no pdn and no pid: filtering on them shows nothing
        rdma(core, "res", "show", "qp", "pdn", "0").is(0, "", "");
        rdma(core, "res", "show", "qp", "pid", "1").is(0, "", "");
    }

    @Test
    void filterErrors() {
        rdma(core, "res", "show", "qp", "foo").is(1, "", "No filter data was supplied to filter option foo\n");
        rdma(core, "res", "show", "qp", "link").is(1, "", "No filter data was supplied to filter option link\n");
        rdma(core, "res", "show", "qp", "foo", "bar").is(1, "", "Unsupported filter option: foo\n");
        rdma(core, "res", "show", "qp", "lqpn", "x").is(1, "",
                "lqpn filter accepts \"1234567890,-\" characters only\n");
        rdma(core, "res", "show", "qp", "lqpn", "1", "state").is(1, "", "There is filter option without data\n");
        rdma(core, "res", "show", "pd", "dev", "foo").is(1, "", "Wrong device name - foo\n");
    }

    @Test
    void pdCqMrSrq() {
        rdma(core, "res", "show", "pd").is(0, "dev mlx0 pdn 0 users 4 comm [ulp] \n", "");
        rdma(core, "res", "show", "cq").is(0,
                "dev mlx0 cqn 0 cqe 16 users 2 poll-ctx DIRECT adaptive-moderation off comm [ulp] \n", "");
        rdma(core, "res", "show", "mr").is(0, "dev mlx0 mrn 1 rkey 0x15a lkey 0x15a mrlen 4096 comm [ulp] \n", "");
        rdma(core, "res", "show", "srq").is(0, "dev mlx0 srqn 0 type BASIC pdn 0 comm [ulp] \n", "");
        rdma(core, "res", "show", "pd", "dev", "rxe0").is(0, "", "");
        rdma(core, "res", "show", "mr", "dev", "mlx0", "mrlen", "4096").is(0,
                "dev mlx0 mrn 1 rkey 0x15a lkey 0x15a mrlen 4096 comm [ulp] \n", "");
        rdma(core, "res", "show", "cq", "users", "3-9").is(0, "", "");
        rdma(core, "res", "show", "srq", "lqpn", "17").is(0, "", "");
    }

    @Test
    void nothingToShowForCmIdsAndContexts() {
        rdma(core, "res", "show", "cm_id").is(0, "", "");
        rdma(core, "res", "show", "ctx").is(0, "", "");
    }

    @Test
    void commIsTheOwnerInBracketsCutAt17Characters() {
        IbDevice rxe = core.device("rxe0").orElseThrow();
        rxe.allocPd(client("a_very_long_client_name"));
        rdma(core, "res", "show", "pd", "dev", "rxe0").is(0, "dev rxe0 pdn 0 users 0 comm [a_very_long_clie \n", "");
    }

    @Test
    void helpAndUnknownCommand() {
        rdma(core, "res", "help").is(0, """
                Usage: rdma resource
                          resource show [DEV]
                          resource show [qp|cm_id|pd|mr|cq|ctx|srq]
                          resource show qp link [DEV/PORT]
                          resource show qp link [DEV/PORT] [FILTER-NAME FILTER-VALUE]
                          resource show cm_id link [DEV/PORT]
                          resource show cm_id link [DEV/PORT] [FILTER-NAME FILTER-VALUE]
                          resource show cq link [DEV/PORT]
                          resource show cq link [DEV/PORT] [FILTER-NAME FILTER-VALUE]
                          resource show pd dev [DEV]
                          resource show pd dev [DEV] [FILTER-NAME FILTER-VALUE]
                          resource show mr dev [DEV]
                          resource show mr dev [DEV] [FILTER-NAME FILTER-VALUE]
                          resource show ctx dev [DEV]
                          resource show ctx dev [DEV] [FILTER-NAME FILTER-VALUE]
                          resource show srq dev [DEV]
                          resource show srq dev [DEV] [FILTER-NAME FILTER-VALUE]
                """, "");
        rdma(core, "res", "flush").is(0, "", "Unknown resource command 'flush'.\n");
    }
}
