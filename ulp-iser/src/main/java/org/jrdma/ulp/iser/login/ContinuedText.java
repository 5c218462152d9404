package org.jrdma.ulp.iser.login;

import java.io.ByteArrayOutputStream;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TextKeys;

/**
 * The data segments of a C=1 login sequence, joined until the PDU with C=0 (RFC 7143 section 6.3: a key=value
 * may be cut anywhere), then decoded; bounded so a peer cannot make it grow without end.
 */
final class ContinuedText {
    /** The most login text one sequence may add up to. */
    static final int MAX_LOGIN_TEXT = 65536;

    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

    void append(byte[] data) throws LoginFailure {
        if (pending.size() + data.length > MAX_LOGIN_TEXT) {
            throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "login text over " + MAX_LOGIN_TEXT + " bytes");
        }
        pending.writeBytes(data);
    }

    /** The joined keys; malformed text fails the login with 0x0200. */
    TextKeys take() throws LoginFailure {
        byte[] text = pending.toByteArray();
        pending.reset();
        try {
            return TextKeys.decode(text);
        } catch (IscsiProtocolException e) {
            throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "login keys: " + e.getMessage());
        }
    }
}
