package org.jrdma.hw.rxe.wire;

/**
 * How Linux rxe picks the UDP source port of a QP's packets (the destination is always 4791).
 *
 * <p>Two rules, both in the dynamic range 0xC000-0xFFFF:
 * <ol>
 * <li><b>At QP creation</b> ({@code rxe_qp_init_req()} in rxe_qp.c):
 * {@code src_port = 0xC000 + (hash_32(qpn, 14) & 0x3fff)}, with the kernel's generic multiplicative hash
 * {@code hash_32(v, bits) = (v * 0x61C88647) >> (32 - bits)} ({@link #ofQpn}). UD QPs and QP1 (GSI) keep
 * this port for good: every CM MAD from rxe leaves from port 55410 = {@code ofQpn(1)}.</li>
 * <li><b>On modify QP with an address vector</b> ({@code rxe_modify_qp()} in rxe_verbs.c, when
 * {@code IB_QP_AV} is in the mask and the AH has a GRH, which is always so on RoCE):
 * {@code src_port = rdma_get_udp_sport(grh.flow_label, qpn, dest_qp_num)} from include/rdma/ib_verbs.h
 * ({@link #ofConnection}). RC and UC QPs are moved to RTR this way, so their traffic (requests, and the
 * responder's ACKs and read responses, which leave from the responder QP's port) uses it. With flow
 * label 0 the label is derived from the product of the two QPNs, so both ends of a connection pick the
 * same port. Connections made with rdma_cm are different: {@code cma_resolve_iboe_route()} sets the path's
 * flow label to {@code (sport * 31 + dport) & 0xfffff} from the rdma_cm ports of the active side
 * ({@code cma_get_roce_udp_flow_label()}, {@link #rdmaCmFlowLabel}); it travels in the CM REQ's primary flow
 * label, so the passive side uses the same label, and both ends again share one port.</li>
 * </ol>
 * All of this checked against every packet of the Linux 6.1 captures (perftest and ibv_*_pingpong QPs: the
 * QPN product; rping, rstream and perftest -R: the rdma_cm label; UD and QP1: the QPN hash).
 */
public final class UdpSourcePort {
    /** {@code RXE_ROCE_V2_SPORT} = {@code IB_ROCE_UDP_ENCAP_VALID_PORT_MIN}. */
    public static final int ROCE_V2_SPORT = 0xc000;
    /** {@code GOLDEN_RATIO_32} of include/linux/hash.h. */
    public static final int GOLDEN_RATIO_32 = 0x61c88647;
    /** {@code IB_GRH_FLOWLABEL_MASK}. */
    public static final int FLOW_LABEL_MASK = 0x000fffff;

    private UdpSourcePort() {
    }

    /** {@code hash_32_generic(val, bits)}: the top {@code bits} bits of {@code val * GOLDEN_RATIO_32}. */
    public static int hash32(int val, int bits) {
        return (val * GOLDEN_RATIO_32) >>> (32 - bits);
    }

    /** The port a new QP gets ({@code rxe_qp_init_req}); UD and GSI QPs keep it. */
    public static int ofQpn(int qpn) {
        return ROCE_V2_SPORT + (hash32(qpn, 14) & 0x3fff);
    }

    /** {@code rdma_calc_flow_label(lqpn, rqpn)}: a 20-bit label symmetric in the two QPNs. */
    public static int calcFlowLabel(int lqpn, int rqpn) {
        long fl = (lqpn & 0xffffffffL) * (rqpn & 0xffffffffL);
        fl ^= fl >>> 20;
        fl ^= fl >>> 40;
        return (int) (fl & FLOW_LABEL_MASK);
    }

    /** {@code rdma_flow_label_to_udp_sport(fl)}: folds the 20-bit label into 14 bits, ORs 0xC000. */
    public static int ofFlowLabel(int flowLabel) {
        int low = flowLabel & 0x03fff;
        int high = flowLabel & 0xfc000;
        low ^= high >>> 14;
        return low | ROCE_V2_SPORT;
    }

    /**
     * {@code cma_get_roce_udp_flow_label()} for IPv4 (and IPv6 without {@code sin6_flowinfo}): the flow label
     * rdma_cm gives a RoCE connection, from the active side's rdma_cm source port and the destination
     * (service) port.
     */
    public static int rdmaCmFlowLabel(int srcPort, int dstPort) {
        return ((srcPort & 0xffff) * 31 + (dstPort & 0xffff)) & FLOW_LABEL_MASK;
    }

    /**
     * {@code rdma_get_udp_sport(fl, lqpn, rqpn)}: the port of an RC/UC QP after modify QP with an AV.
     *
     * @param flowLabel the AH's GRH flow label; 0 (what ibv_modify_qp users such as perftest and the
     *        pingpong examples pass) derives one from the QPNs; rdma_cm passes {@link #rdmaCmFlowLabel}
     */
    public static int ofConnection(int flowLabel, int lqpn, int rqpn) {
        int fl = flowLabel;
        if (fl == 0) {
            fl = calcFlowLabel(lqpn, rqpn);
        }
        return ofFlowLabel(fl);
    }
}
