package org.jrdma.ulp.iser.initiator;

import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.pdu.LoginStatus;

/**
 * A connection or login that did not reach the full feature phase, with open-iscsi's classification of why
 * (its {@code iscsi_err.h} code, which iscsiadm exits with).
 */
public final class LoginFailedException extends IserIoException {
    private static final long serialVersionUID = 1L;

    /** open-iscsi's {@code ISCSI_ERR_*} codes and words a failed login maps to. */
    public enum Kind {
        TRANSPORT(4, "encountered connection failure"),
        LOGIN(5, "login failure"),
        TIMEOUT(8, "connection timed out"),
        FATAL_LOGIN(19, "encountered non-retryable iSCSI login failure"),
        AUTH(24, "iSCSI login failed due to authorization failure");

        private final int code;
        private final String words;

        Kind(int code, String words) {
            this.code = code;
            this.words = words;
        }

        public int code() {
            return code;
        }

        public String words() {
            return words;
        }

        /** Class 2 (initiator error) is not retried by open-iscsi; 0x0201 is an authentication failure. */
        static Kind of(LoginStatus s) {
            if (s == LoginStatus.AUTHENTICATION_FAILURE || s == LoginStatus.AUTHORIZATION_FAILURE) {
                return AUTH;
            }
            return s.statusClass() == 2 ? FATAL_LOGIN : LOGIN;
        }
    }

    private final Kind kind;

    LoginFailedException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    LoginFailedException(Kind kind, String message) {
        this(kind, message, null);
    }

    public Kind kind() {
        return kind;
    }
}
