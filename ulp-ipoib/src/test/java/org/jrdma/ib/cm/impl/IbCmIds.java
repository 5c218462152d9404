package org.jrdma.ib.cm.impl;

/** What the IB CM still holds, for ipoib's leak checks (in the CM's package: its tables are package-private). */
public final class IbCmIds {
    private IbCmIds() {
    }

    /** Ids not destroyed (or destroyed and time-waiting), listeners included. */
    public static int live(IbCmService cm) {
        synchronized (cm.lock) {
            return cm.ids.size();
        }
    }
}
