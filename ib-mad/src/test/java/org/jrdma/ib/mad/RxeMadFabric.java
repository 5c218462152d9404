package org.jrdma.ib.mad;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.hw.rxe.InMemoryWire;
import org.jrdma.hw.rxe.RxeDevice;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;

/** Two hw-rxe devices (127.0.0.1, 127.0.0.2) on an in-memory wire, addressed by GRH (DGID). */
final class RxeMadFabric implements MadFabric {
    private final IbCore core = IbCore.newInstance();
    private final InMemoryWire wire = new InMemoryWire(1);
    private final RxeDevice ra = device("127.0.0.1", 1);
    private final RxeDevice rb = device("127.0.0.2", 2);
    private final IbDevice a = ra.register(core.registrar()).device();
    private final IbDevice b = rb.register(core.registrar()).device();
    private boolean aRemoved;

    private RxeDevice device(String ip, long mac) {
        try {
            RxeDevice d = new RxeDevice("rxe%d", List.of(InetAddress.getByName(ip)), 1500, 0x02_00_00_00_00_00L | mac,
                    wire);
            wire.attach(d);
            return d;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

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
        return new AhAttr().grh(d.queryGid(1, 0), 0);
    }

    public boolean infiniband() {
        return false;
    }

    public List<?> removeA() {
        aRemoved = true;
        wire.detach(ra);
        return ra.close().leaked();
    }

    public void close() {
        List<Object> leaks = new ArrayList<>();
        wire.detach(rb);
        leaks.addAll(rb.close().leaked());
        if (!aRemoved) {
            wire.detach(ra);
            leaks.addAll(ra.close().leaked());
        }
        wire.close();
        if (!leaks.isEmpty()) {
            throw new AssertionError("resources left at unregistration: " + leaks);
        }
    }
}
