package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.spi.DriverPd;

/** A protection domain: identity only; keys and QPs point at it. */
public final class RvtPd implements DriverPd {
    final int pdn;

    RvtPd(int pdn) {
        this.pdn = pdn;
    }

    public int pdn() {
        return pdn;
    }
}
