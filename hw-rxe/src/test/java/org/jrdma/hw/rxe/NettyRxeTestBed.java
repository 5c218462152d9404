package org.jrdma.hw.rxe;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetIcrc;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.verbs.conformance.VerbsTestBed;

/**
 * The conformance suites' bed on hw-rxe over the real transport: two RxeDevices on 127.X.Y.1 and
 * 127.X.Y.2 (random X, Y) (netdev MTU 1500, so path MTU 1024), each with its own {@link NettyWire} bound on UDP 4791
 * (epoll where available), packets through the kernel's loopback.
 */
final class NettyRxeTestBed implements VerbsTestBed {
    static {
        LeakCheck.install();
    }

    private final IbCore core = IbCore.newInstance();
    private final List<RxeDevice> devices = new ArrayList<>();
    private final List<NettyWire> wires = new ArrayList<>();
    private final IbDevice a;
    private final IbDevice b;

    NettyRxeTestBed() {
        this(NettyWire.Transport.AUTO);
    }

    NettyRxeTestBed(NettyWire.Transport t) {
        String net = randomLoopbackNet();
        a = add(net + "1", 1, t);
        b = add(net + "2", 2, t);
    }

    /**
     * {@code 127.X.Y.} with random X, Y: all of 127/8 is on lo, so concurrent builds on one host do not collide
     * on UDP 4791 (the fixed RoCE port).
     */
    static String randomLoopbackNet() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        return "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
    }

    private IbDevice add(String ip, long mac, NettyWire.Transport t) {
        try {
            NettyWire wire = new NettyWire(t, NettyWire.ROCE_PORT, "t" + mac);
            wires.add(wire);
            RxeDevice d = new RxeDevice("rxe%d", List.of(InetAddress.getByName(ip)), 1500, 0x02_00_00_00_00_00L | mac,
                    wire);
            d.icrcCheck(RxeNetIcrc.receiveCheck());
            devices.add(d);
            wire.attach(d);
            return d.register(core.registrar()).device();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public IbCore core() {
        return core;
    }

    @Override
    public IbDevice a() {
        return a;
    }

    @Override
    public IbDevice b() {
        return b;
    }

    @Override
    public int portA() {
        return 1;
    }

    @Override
    public int portB() {
        return 1;
    }

    @Override
    public AhAttr avTo(IbDevice d, int port) {
        return new AhAttr().grh(d.queryGid(port, 0), 0);
    }

    @Override
    public Map<String, String> knownFailures() {
        return RxeTestBed.KNOWN_FAILURES;
    }

    @Override
    public void close() {
        List<String> leaks = new ArrayList<>();
        for (int i = devices.size() - 1; i >= 0; i--) {
            wires.get(i).detach(devices.get(i));
            UnregisterReport r = devices.get(i).close();
            if (r != null && !r.leaked().isEmpty()) {
                leaks.add(r.deviceName() + " leaked " + r.leaked());
            }
        }
        devices.clear();
        wires.forEach(NettyWire::close);
        wires.clear();
        if (!leaks.isEmpty()) {
            throw new AssertionError("resources left at unregistration: " + leaks);
        }
    }
}
