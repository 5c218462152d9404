package org.jrdma.ulp.iser.initiator;

import java.nio.ByteBuffer;
import org.jrdma.ulp.iser.pdu.OtherHeader;
import org.jrdma.ulp.iser.pdu.TargetSn;

/**
 * An Asynchronous Message (RFC 7143 11.9): its sequence numbers (bytes 24..35) and AsyncEvent (byte 36), and what
 * an ERL 0 initiator with one connection does about it, as open-iscsi: a requested logout is done and the session
 * reinstated; a connection the target drops is given up now and reinstated.
 */
record AsyncEvent(TargetSn sn, Kind kind) {
    enum Kind {
        SCSI_EVENT, REQUEST_LOGOUT, DROP_CONNECTION, DROP_ALL_CONNECTIONS, REQUEST_NEGOTIATION, OTHER;

        static Kind of(int event) {
            return event < OTHER.ordinal() ? values()[event] : OTHER;
        }
    }

    static AsyncEvent of(OtherHeader h) {
        ByteBuffer b = ByteBuffer.wrap(h.bytes());
        return new AsyncEvent(new TargetSn(b.getInt(24), b.getInt(28), b.getInt(32)), Kind.of(b.get(36) & 0xff));
    }
}
