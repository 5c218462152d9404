package org.jrdma.ulp.iser.initiator;

import org.jrdma.ulp.iser.login.InitiatorLogin;

/** The login package's initiator negotiation, for a {@link LoginSpec}. */
final class DefaultLogins {
    private DefaultLogins() {
    }

    static InitiatorLogin create(LoginSpec spec) {
        throw new UnsupportedOperationException("InitiatorLogins (branch iser-login) not merged yet");
    }
}
