package org.jrdma.ulp.iser.login;

/** Makes the initiator's side of a connection's login. */
public final class InitiatorLogins {
    private InitiatorLogins() {
    }

    /** A login with {@code p}: {@link InitiatorLogin#start()} gives the first Login Request. */
    public static InitiatorLogin create(InitiatorLoginParams p) {
        return new InitiatorLoginMachine(p);
    }
}
