package org.jrdma.hw.rxe;

/**
 * The device and port limits and the protocol tunables of {@code rxe_param.h}, under its names without the
 * {@code RXE_} prefix. Where jrdma's value differs from Linux 6.1's (its {@code DEFAULT_MAX_VALUE} limits), jrdma's
 * is the one it reports and enforces.
 */
final class RxeParams {
    // ---- enum rxe_device_param: what query_device reports
    /** {@code RXE_MAX_MR_SIZE} (Linux: -1; a jrdma region is one Java buffer). */
    static final long MAX_MR_SIZE = Integer.MAX_VALUE;
    static final long PAGE_SIZE_CAP = 0xfffff000L;
    static final int VENDOR_ID = 0xffffff;
    static final int MAX_QP = 0x10000;
    static final int MAX_QP_WR = 0x4000;
    /** {@code RXE_MAX_SGE}: send and receive SGEs per WR. */
    static final int MAX_SGE = 32;
    static final int MAX_SGE_RD = 32;
    static final int MAX_CQ = 16384;
    /** {@code RXE_MAX_LOG_CQE}: max_cqe is {@code (1 << RXE_MAX_LOG_CQE) - 1}. */
    static final int MAX_LOG_CQE = 15;
    static final int MAX_MR = 0x10000;
    static final int MAX_PD = 0x7ffc;
    static final int MAX_QP_RD_ATOM = 128;
    static final int MAX_RES_RD_ATOM = 0x3f000;
    static final int MAX_QP_INIT_RD_ATOM = 128;
    static final int MAX_MW = 0x8000;
    static final int MAX_MCAST_GRP = 8192;
    static final int MAX_MCAST_QP_ATTACH = 56;
    static final int MAX_TOT_MCAST_QP_ATTACH = 0x70000;
    static final int MAX_AH = 0x8000;
    static final int MAX_SRQ = 960;
    static final int MAX_SRQ_WR = 0x4000;
    static final int MAX_SRQ_SGE = 27;
    static final int MAX_FMR_PAGE_LIST_LEN = 512;
    static final int MAX_PKEYS = 64;
    static final int LOCAL_CA_ACK_DELAY = 15;
    static final int MAX_INLINE_DATA = 400;
    /**
     * How long a QP with {@code retry_cnt} 7 retries without progress before RETRY_EXC_ERR. Linux rxe retries 7
     * forever, so a peer that died (a node crash, a kill -9 of its JVM) hangs the sender for good; jrdma keeps rxe's
     * patience for a slow peer (a loaded VM) but not forever. {@code -Djrdma.rxe.retry7Seconds=0}: forever, as rxe.
     */
    static volatile long retry7LimitNanos = java.util.concurrent.TimeUnit.SECONDS.toNanos(
            Long.getLong("jrdma.rxe.retry7Seconds", 30)); // tests shorten it

    // ---- enum rxe_port_param: what query_port reports
    static final long PORT_MAX_MSG_SZ = 0x800000L;
    /** {@code RXE_PORT_PORT_CAP_FLAGS}: IB_PORT_CM_SUP | IB_PORT_IP_BASED_GIDS. */
    static final int PORT_PORT_CAP_FLAGS = 0x04010000;
    static final int PORT_MAX_VL_NUM = 1;
    static final int PORT_PKEY_TBL_LEN = 1;
    /** {@code RXE_PORT_ACTIVE_WIDTH}: IB_WIDTH_1X. */
    static final int PORT_ACTIVE_WIDTH = 1;
    static final int PORT_ACTIVE_SPEED = 1;

    // ---- the protocol
    /** {@code RXE_MAX_UNACKED_PSNS}: the requester's window of unacknowledged PSNs. */
    static final int MAX_UNACKED_PSNS = 128;
    /** {@code RXE_MAX_PKT_PER_ACK}: AckReq at least every this many packets. */
    static final int MAX_PKT_PER_ACK = 64;
    /** Responder resources kept for atomic replay. */
    static final int MAX_RD_ATOMIC_RESOURCES = 128;
    static final int PSN_MASK = 0xffffff;
    /** Half the PSN space: the most PSNs that can be outstanding (reads may span more than MAX_UNACKED_PSNS). */
    static final int MAX_UNACKED_READ_PSNS = 1 << 23;

    private RxeParams() {
    }

    /** {@code psn_compare}: negative if a is before b, in 24-bit serial arithmetic. */
    static int psnCompare(int a, int b) {
        return (a - b) << 8;
    }

    static int psnAdd(int psn, int n) {
        return (psn + n) & PSN_MASK;
    }
}
