package org.jrdma.ulp.iser.conn;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;
import org.jrdma.ulp.iser.pdu.IserPdu;

/**
 * One established iSER connection ({@code struct iser_conn} / {@code struct isert_conn}): an RC QP connected
 * through the RDMA CM, receives posted, SENDs and RDMA READ/WRITE posted from any thread. Completions arrive
 * on the connection's completion thread; the stages complete there (do not block in them).
 *
 * <p>Errors: a work request that completes in error fails its stage with an {@link IserTransportException}
 * naming the {@code WcStatus}, and the connection goes down ({@link IserConnectionHandler#onDisconnected}).
 */
public interface IserConnection extends AutoCloseable {

    /** Posts one PDU as a SEND. The stage completes when the SEND's completion arrives. */
    CompletionStage<Void> send(IserPdu pdu);

    /**
     * Posts one PDU as a SEND_WITH_INV that invalidates the peer's {@code rkey} (isert answers a command with
     * it when the initiator's CM private data allowed it: {@link #peerAcceptsSendWithInvalidate()}).
     */
    CompletionStage<Void> sendWithInvalidate(IserPdu pdu, int rkey);

    /** RDMA READ of {@code length} bytes at the peer's (stag, va) into {@code local} at {@code offset}. */
    CompletionStage<Void> rdmaRead(IserBuffer local, int offset, int length, int stag, long va);

    /** RDMA WRITE of {@code length} bytes of {@code local} at {@code offset} to the peer's (stag, va). */
    CompletionStage<Void> rdmaWrite(IserBuffer local, int offset, int length, int stag, long va);

    /**
     * {@link #send} of a PDU whose completion the caller does not wait for (ib_iser's SCSI commands: the response
     * says it arrived): the transport may signal only every few such WRs, as ib_iser signals one command in
     * ISER_SIGNAL_CMD_COUNT; the stage then completes late, with a later completion, or fails with the connection.
     */
    default CompletionStage<Void> sendUnsignaled(IserPdu pdu) {
        return send(pdu);
    }

    /**
     * {@link #rdmaWrite} that a {@link #send} or {@link #sendWithInvalidate} the caller posts next on this connection
     * follows (isert's data-in and its SCSI Response): the transport may post it unsignalled, as Linux does, its stage
     * then completing with that SEND's completion (or failing with the connection). A caller that ends up not sending
     * leaves the stage pending until the next completion or the connection's end.
     */
    default CompletionStage<Void> rdmaWriteBeforeSend(IserBuffer local, int offset, int length, int stag, long va) {
        return rdmaWrite(local, offset, length, stag, va);
    }

    /** Registered memory of this connection's PD: data buffers whose STags the peer may be told. */
    IserBufferPool buffers();

    /**
     * The largest iSCSI data segment one received SEND can carry here (Linux: ISER_RECV_DATA_SEG_LEN, 8 KiB,
     * is what MaxRecvDataSegmentLength may be over iSER; receive buffers are sized to it plus headers).
     */
    int maxRecvDataSegmentLength();

    /** Whether the peer's CM private data ({@code struct iser_cm_hdr}) did not forbid SEND_WITH_INV. */
    boolean peerAcceptsSendWithInvalidate();

    InetSocketAddress localAddress();

    InetSocketAddress remoteAddress();

    /** Sets who gets received PDUs and the disconnect; the listener/connector sets a first one. */
    void handler(IserConnectionHandler handler);

    /**
     * {@code rdma_disconnect}: outstanding work flushes (its stages fail), the handler's onDisconnected runs
     * once, the QP, CQ, receive buffers and the CM id are freed. Idempotent.
     */
    @Override
    void close();
}
