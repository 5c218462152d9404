package org.jrdma.ib.mad;

import java.util.ArrayList;
import java.util.List;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.spi.UnregisterReport;

/** Two single-port hw-loopback devices on the loopback switch, addressed by DLID. */
final class LoopbackMadFabric implements MadFabric {
    private final IbCore core = IbCore.newInstance();
    private final LoopbackDevice la = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 1, 0);
    private final LoopbackDevice lb = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 1, 0);
    private final IbDevice a = la.register(core.registrar()).device();
    private final IbDevice b = lb.register(core.registrar()).device();
    private boolean aRemoved;

    public IbCore core() {
        return core;
    }

    public IbDevice a() {
        return a;
    }

    public IbDevice b() {
        return b;
    }

    public AhAttr avTo(IbDevice d) {
        return new AhAttr().dlid(d.queryPort(1).lid());
    }

    public boolean infiniband() {
        return true;
    }

    public List<?> removeA() {
        aRemoved = true;
        return la.close().leaked();
    }

    public void close() {
        List<Object> leaks = new ArrayList<>();
        UnregisterReport r = lb.close();
        leaks.addAll(r.leaked());
        if (!aRemoved) {
            leaks.addAll(la.close().leaked());
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError("resources left at unregistration: " + leaks);
        }
    }
}
