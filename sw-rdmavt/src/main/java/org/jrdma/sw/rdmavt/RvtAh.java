package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.spi.DriverAh;

/** An address handle: the address vector, and the PD it was created in. */
public final class RvtAh implements DriverAh {
    final RvtPd pd;
    final AhAttr attr;

    RvtAh(RvtPd pd, AhAttr attr) {
        this.pd = pd;
        this.attr = attr.copy();
    }

    public AhAttr attr() {
        return attr;
    }
}
