package org.jrdma.ulp.iser.initiator;

import org.jrdma.ulp.iser.login.InitiatorLogin;
import org.jrdma.ulp.iser.login.InitiatorLoginParams;

/** Makes the login state machine of one connection: {@code InitiatorLogins::create} (tests may script one). */
@FunctionalInterface
interface LoginFactory {
    InitiatorLogin create(InitiatorLoginParams params);
}
