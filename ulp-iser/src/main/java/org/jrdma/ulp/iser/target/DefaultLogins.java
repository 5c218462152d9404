package org.jrdma.ulp.iser.target;

/** The login state machine the public constructor uses. */
final class DefaultLogins {
    static final IserTargetRuntime.LoginFactory FACTORY = (policy, portal) -> {
        throw new UnsupportedOperationException("login: waiting for branch iser-login's TargetLogins");
    };

    private DefaultLogins() {
    }
}
