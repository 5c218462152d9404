package org.jrdma.ulp.iser.initiator;

import org.jrdma.ulp.iser.login.InitiatorLogin;

/** Makes the login state machine of one connection (the login package's {@code InitiatorLogins}). */
@FunctionalInterface
interface LoginFactory {
    InitiatorLogin create(LoginSpec spec);
}
