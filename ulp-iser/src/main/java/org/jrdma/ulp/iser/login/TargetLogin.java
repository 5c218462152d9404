package org.jrdma.ulp.iser.login;

import org.jrdma.ulp.iser.pdu.IscsiPdu;

/**
 * The target's side of one connection's login (LIO {@code iscsi_target_login.c} + {@code iscsi_target_nego.c}):
 * fed each Login Request, answers each with a Login Response. Never throws for bad input: a malformed or
 * refused request becomes a response with the right status class/detail and state FAILED.
 *
 * <p>Made by the login package's implementation from a {@link TargetLoginPolicy}.
 */
public interface TargetLogin {
    LoginStep onRequest(IscsiPdu loginRequest);
}
