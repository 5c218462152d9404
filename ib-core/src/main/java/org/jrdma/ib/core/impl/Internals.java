package org.jrdma.ib.core.impl;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DriverAh;
import org.jrdma.ib.core.spi.DriverMr;
import org.jrdma.ib.core.spi.DriverMw;

/** Backs {@link org.jrdma.ib.core.spi.DriverObjects}: the only way out of the private core classes. */
public final class Internals {
    private Internals() {
    }

    private static AbstractResource checked(Object o, IbDevice device, String what) {
        if (!(o instanceof AbstractResource)) {
            throw new VerbsException(Errno.EINVAL, what + " is " + (o == null ? "missing" : "not an ib-core object"));
        }
        AbstractResource r = (AbstractResource) o;
        if (r.device != device) {
            throw new VerbsException(Errno.EINVAL, what + " belongs to device " + r.device.name());
        }
        r.checkValid();
        return r;
    }

    public static DriverAh ah(AddressHandle ah, IbDevice device) {
        return ((AhImpl) checked(ah, device, "the address handle")).dah;
    }

    public static DriverMr mr(MemoryRegion mr, IbDevice device) {
        return ((MrImpl) checked(mr, device, "the memory region")).dmr;
    }

    public static DriverMw mw(MemoryWindow mw, IbDevice device) {
        return ((MwImpl) checked(mw, device, "the memory window")).dmw;
    }
}
