package org.jrdma.ulp.iser.login;

import org.jrdma.ulp.iser.pdu.IscsiPdu;

/**
 * The initiator's side of one connection's login (open-iscsi {@code initiator_common.c} / {@code login.c}):
 * {@link #start()} gives the first Login Request, each Login Response gives the next request or the end.
 */
public interface InitiatorLogin {
    IscsiPdu start();

    LoginStep onResponse(IscsiPdu loginResponse);
}
