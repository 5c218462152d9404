package org.jrdma.ulp.iser.initiator;

import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.IserSession;

/** A login to a (target, portal) that already has a session: open-iscsi's ISCSI_ERR_SESS_EXISTS. */
public final class SessionExistsException extends IserIoException {
    private static final long serialVersionUID = 1L;
    private final int sid;

    SessionExistsException(IserSession existing) {
        super("session " + existing.sid() + " to " + existing.targetName() + " at " + existing.portal()
                + " already exists");
        this.sid = existing.sid();
    }

    public int sid() {
        return sid;
    }
}
