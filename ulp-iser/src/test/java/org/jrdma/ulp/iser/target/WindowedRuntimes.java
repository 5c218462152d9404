package org.jrdma.ulp.iser.target;

import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.login.TargetLogins;

/** For the initiator's end-to-end tests: a target runtime with a small command window (test access only). */
public final class WindowedRuntimes {
    private WindowedRuntimes() {
    }

    /** LIO's nopin_timeout / nopin_response_timeout shortened, so that a vanished initiator is found soon. */
    public static IserTargetRuntime pinging(IserTransport transport, TargetDirectory directory,
            java.time.Duration idle, java.time.Duration timeout) {
        return new IserTargetRuntime(transport, directory, TargetLogins::create, CmdSnWindow.DEFAULT_WINDOW, idle,
                timeout);
    }

    public static IserTargetRuntime create(IserTransport transport, TargetDirectory directory, int window) {
        return new IserTargetRuntime(transport, directory, TargetLogins::create, window);
    }
}
