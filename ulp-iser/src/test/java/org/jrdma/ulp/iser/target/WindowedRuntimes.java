package org.jrdma.ulp.iser.target;

import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.login.TargetLogins;

/** For the initiator's end-to-end tests: a target runtime with a small command window (test access only). */
public final class WindowedRuntimes {
    private WindowedRuntimes() {
    }

    public static IserTargetRuntime create(IserTransport transport, TargetDirectory directory, int window) {
        return new IserTargetRuntime(transport, directory, TargetLogins::create, window);
    }
}
