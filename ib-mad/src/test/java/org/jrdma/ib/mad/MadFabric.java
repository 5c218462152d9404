package org.jrdma.ib.mad;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;

/** Two devices on one fabric, each with its port 1, registered with a private IbCore. */
interface MadFabric extends AutoCloseable {
    IbCore core();

    IbDevice a();

    IbDevice b();

    /** The address vector to port 1 of {@code d}, as a MAD sender gives it. */
    AhAttr avTo(IbDevice d);

    /** Unregisters device A (hot unplug); returns what ib-core had to reap (should be nothing). */
    java.util.List<?> removeA();

    /** Whether the link layer is InfiniBand (LID-routed, SMI QP0 present). */
    boolean infiniband();

    @Override
    void close();
}
