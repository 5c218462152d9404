package org.jrdma.hw.rxe.wire;

/**
 * Wire constants of RoCEv2 as rxe uses them ({@code rxe_hdr.h}, {@code rxe_param.h}, {@code include/rdma/ib_pack.h}).
 */
public final class RxeWire {
    /** {@code ROCE_V2_UDP_DPORT}: the IANA RoCEv2 port, the UDP destination of every rxe packet. */
    public static final int ROCE_V2_UDP_DPORT = 4791;
    /** {@code RXE_ICRC_SIZE}: the invariant CRC trailing every packet. */
    public static final int ICRC_BYTES = 4;
    /** {@code RXE_MAX_HDR_LENGTH}: IP + UDP + rxe headers, subtracted from the netdev MTU for the active MTU. */
    public static final int MAX_HDR_LENGTH = 80;
    /** {@code BTH_TVER}: the only transport header version. */
    public static final int BTH_TVER = 0;
    /** {@code BTH_DEF_PKEY} / {@code IB_DEFAULT_PKEY_FULL}: what rxe puts in every BTH. */
    public static final int DEFAULT_PKEY = 0xffff;
    /** {@code GSI_QKEY}: the Q_Key of QP1 (CM MADs). */
    public static final int GSI_QKEY = 0x80010000;
    /** PSNs and QPNs are 24 bits. */
    public static final int PSN_MASK = 0x00ffffff;
    /** PSNs and QPNs are 24 bits. */
    public static final int QPN_MASK = 0x00ffffff;

    private RxeWire() {
    }

    /**
     * Pad count for a payload of {@code payloadLength} bytes: the payload plus pad is a multiple of 4
     * ({@code (-paylen) & 0x3} in rxe_req.c).
     */
    public static int padFor(int payloadLength) {
        return (-payloadLength) & 3;
    }

    /**
     * The UDP payload length of a packet: headers, payload, pad and ICRC.
     */
    public static int udpPayloadLength(RxeOpcode opcode, int payloadLength) {
        return opcode.length() + payloadLength + padFor(payloadLength) + ICRC_BYTES;
    }
}
