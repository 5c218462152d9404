package org.jrdma.ulp.iser.conn;

import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserPdu;

/** What an {@link IserConnection} delivers, on its completion thread, in order. */
public interface IserConnectionHandler {

    /**
     * One received SEND, decoded. The PDU owns its data (a copy), so it may be kept; the receive buffer is
     * posted again when this returns.
     */
    void onPdu(IserConnection conn, IserPdu pdu);

    /**
     * A received SEND that does not decode: the session answers with a Reject (reason in the exception) or
     * drops the connection. The default drops it.
     */
    default void onMalformed(IserConnection conn, IscsiProtocolException error) {
        conn.close();
    }

    /** The connection is gone (peer DREQ, a WR in error, device removal, or {@code close()}): called once. */
    void onDisconnected(IserConnection conn, String reason);
}
