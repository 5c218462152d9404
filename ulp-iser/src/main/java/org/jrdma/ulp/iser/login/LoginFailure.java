package org.jrdma.ulp.iser.login;

import org.jrdma.ulp.iser.pdu.LoginStatus;

/** A login refused with a status class/detail (RFC 7143 section 11.13.5); caught by the state machines. */
final class LoginFailure extends Exception {
    private static final long serialVersionUID = 1L;
    private final LoginStatus status;

    LoginFailure(LoginStatus status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    LoginStatus status() {
        return status;
    }

    /** The reason with the status in the RFC's hex form, for {@link LoginStep#failure()}. */
    String describe() {
        return String.format("login status 0x%02x%02x %s: %s", status.statusClass(), status.detail(), status,
                getMessage());
    }
}
