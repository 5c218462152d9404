package org.jrdma.ulp.iser.conn;

import java.net.InetAddress;

/**
 * How {@link RdmaIserTransport} sizes a connection. Defaults follow Linux: isert's queue (128 commands,
 * {@code ISCSI_DEF_XMIT_CMDS_MAX}, plus a few unsolicited PDUs each way) and ib_iser's 8 KiB receive data
 * segment ({@code ISER_RECV_DATA_SEG_LEN}).
 *
 * @param queueDepth              iSCSI commands in flight per connection (sizes the queues below by default)
 * @param sendWr                  send queue depth: SENDs plus RDMA READ/WRITEs posted at once (more are queued in
 *                                order, never refused)
 * @param recvWr                  receive buffers posted (isert: {@code ISERT_QP_MAX_RECV_DTOS})
 * @param sendBuffers             registered send buffers (one per SEND in flight)
 * @param maxRecvDataSegmentLength the largest data segment a received SEND may carry
 * @param maxAhsLength            the AHS bytes a received PDU may carry on top of it
 * @param maxBufferLength         the largest {@link IserBuffer} the pool serves (a power of two)
 * @param slabBytes               the pool registers memory in slabs of this size (larger classes: one buffer)
 * @param poolBytes               the most the pool registers per connection; past it allocate fails
 * @param connectTimeoutMs        the whole connect (address, route, REQ/REP) must end in this time
 * @param acceptRemoteInvalidate  the initiator tells the target SEND_WITH_INV is fine (clears
 *                                ISER_SEND_W_INV_NOT_SUP); only for peers' rkeys of fast-registration MRs: the
 *                                pool's slab rkeys must never be invalidated, so the default is false
 * @param sourceAddress           the initiator's local address (iscsiadm {@code iface.ipaddress}), or null
 */
public record IserConnectionConfig(int queueDepth, int sendWr, int recvWr, int sendBuffers,
        int maxRecvDataSegmentLength, int maxAhsLength, int maxBufferLength, int slabBytes, long poolBytes,
        int connectTimeoutMs, boolean acceptRemoteInvalidate, InetAddress sourceAddress) {

    /** Linux ib_iser / isert: ISER_RECV_DATA_SEG_LEN. */
    public static final int ISER_RECV_DATA_SEG_LEN = 8192;
    /** The smallest pool buffer; classes double up to {@link #maxBufferLength}. */
    public static final int MIN_BUFFER_LENGTH = 4096;

    public IserConnectionConfig {
        if (queueDepth < 1 || sendWr < 2 || recvWr < 2 || sendBuffers < 1 || sendBuffers > sendWr) {
            throw new IllegalArgumentException("queue sizes: queueDepth " + queueDepth + ", sendWr " + sendWr
                    + ", recvWr " + recvWr + ", sendBuffers " + sendBuffers + " (1 <= sendBuffers <= sendWr)");
        }
        if (maxRecvDataSegmentLength < 512 || maxAhsLength < 0 || maxAhsLength % 4 != 0) {
            throw new IllegalArgumentException("maxRecvDataSegmentLength " + maxRecvDataSegmentLength
                    + " (>= 512), maxAhsLength " + maxAhsLength + " (a multiple of 4)");
        }
        if (Integer.bitCount(maxBufferLength) != 1 || maxBufferLength < MIN_BUFFER_LENGTH || slabBytes < MIN_BUFFER_LENGTH
                || poolBytes < maxBufferLength) {
            throw new IllegalArgumentException("buffers: maxBufferLength " + maxBufferLength
                    + " (a power of two >= 4096), slabBytes " + slabBytes + ", poolBytes " + poolBytes);
        }
        if (connectTimeoutMs < 1) {
            throw new IllegalArgumentException("connectTimeoutMs " + connectTimeoutMs);
        }
    }

    /** Linux-sized: 128 commands, 8 KiB data segments, 4 MiB buffers from 4 MiB slabs, 256 MiB at most, 10 s. */
    public static IserConnectionConfig defaults() {
        return ofQueueDepth(128);
    }

    /** Queues sized for {@code queueDepth} commands (each: a SEND and an RDMA READ or WRITE, plus unsolicited PDUs). */
    public static IserConnectionConfig ofQueueDepth(int queueDepth) {
        return new IserConnectionConfig(queueDepth, 2 * queueDepth + 8, queueDepth + 8, queueDepth + 8,
                ISER_RECV_DATA_SEG_LEN, 64, 4 << 20, 4 << 20, 256L << 20, 10_000, false, null);
    }

    public IserConnectionConfig withSourceAddress(InetAddress source) {
        return new IserConnectionConfig(queueDepth, sendWr, recvWr, sendBuffers, maxRecvDataSegmentLength,
                maxAhsLength, maxBufferLength, slabBytes, poolBytes, connectTimeoutMs, acceptRemoteInvalidate, source);
    }

    public IserConnectionConfig withAcceptRemoteInvalidate(boolean accept) {
        return new IserConnectionConfig(queueDepth, sendWr, recvWr, sendBuffers, maxRecvDataSegmentLength,
                maxAhsLength, maxBufferLength, slabBytes, poolBytes, connectTimeoutMs, accept, sourceAddress);
    }

    public IserConnectionConfig withConnectTimeoutMs(int ms) {
        return new IserConnectionConfig(queueDepth, sendWr, recvWr, sendBuffers, maxRecvDataSegmentLength,
                maxAhsLength, maxBufferLength, slabBytes, poolBytes, ms, acceptRemoteInvalidate, sourceAddress);
    }

    public IserConnectionConfig withPool(int maxBufferLength, int slabBytes, long poolBytes) {
        return new IserConnectionConfig(queueDepth, sendWr, recvWr, sendBuffers, maxRecvDataSegmentLength,
                maxAhsLength, maxBufferLength, slabBytes, poolBytes, connectTimeoutMs, acceptRemoteInvalidate,
                sourceAddress);
    }

    /** One receive buffer: iSER header, BHS, AHS, data segment and its pad, rounded to 64 bytes. */
    public int recvBufferLength() {
        return (28 + 48 + maxAhsLength + maxRecvDataSegmentLength + 3 + 63) & ~63;
    }

    /** One send buffer: as large as a receive buffer (the peer's limit over iSER is the same 8 KiB). */
    public int sendBufferLength() {
        return recvBufferLength();
    }
}
