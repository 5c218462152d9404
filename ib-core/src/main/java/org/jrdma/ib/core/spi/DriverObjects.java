package org.jrdma.ib.core.spi;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.impl.Internals;

/**
 * The driver objects behind core objects a work request names (the AH of a UD send, the MR of a
 * REG_MR, the MW of a BIND_MW): what {@code to_rah()}/{@code to_rmr()} do in rxe. Each checks that
 * the object is alive and belongs to {@code device} (EINVAL otherwise).
 */
public final class DriverObjects {
    private DriverObjects() {
    }

    public static DriverAh ah(AddressHandle ah, IbDevice device) {
        return Internals.ah(ah, device);
    }

    public static DriverMr mr(MemoryRegion mr, IbDevice device) {
        return Internals.mr(mr, device);
    }

    public static DriverMw mw(MemoryWindow mw, IbDevice device) {
        return Internals.mw(mw, device);
    }
}
