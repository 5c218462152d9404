package org.jrdma.hw.rxe;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.verbs.conformance.VerbsTestBed;

/**
 * The conformance suites' bed on hw-rxe: two RxeDevices (netdev MTU 1500, so path MTU 1024), addressed
 * by GRH (DGID = the peer's IPv4-mapped GID). A subclass says which wire carries their packets.
 */
abstract class AbstractRxeTestBed implements VerbsTestBed {
    static {
        LeakCheck.install();
        // the suites move a GiB in one test: PARANOID records a stack trace per buffer access and made it
        // 10x slower; ADVANCED samples (leaks are still counted and fail the class). The Netty-specific
        // tests (NettyWireRcTest, NettyUdGrhTest, RxeHostilePacketTest) stay PARANOID.
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.ADVANCED);
    }

    private static final String UC_RACE = "suite race, not an engine bug: UC completes at the sender when the"
            + " packet leaves (as rxe does), and the test reads the target right after that completion, before the"
            + " packet has landed (hw-loopback places the data before it completes)";

    /** Conformance tests hw-rxe is known to fail, with the reason (reported as skipped). */
    static final Map<String, String> KNOWN_FAILURES = Map.of(
            "ErrorSuite#ucRemoteErrorsAreSilent", UC_RACE,
            "RdmaSuite#rdmaWrite", UC_RACE + " (the UC invocation; RC WRITE is covered by RxeRcTest.writeThenRead)");

    private final IbCore core = IbCore.newInstance();
    private final List<RxeDevice> devices = new ArrayList<>();
    private IbDevice a;
    private IbDevice b;

    /** Creates the two devices; a subclass calls it once its own fields are set. */
    protected final void start(String ipA, String ipB) {
        a = add(ipA, 1);
        b = add(ipB, 2);
    }

    /** The wire the device with this MAC suffix sends through. */
    protected abstract RxeWire wireFor(long mac);

    /** Connects a new device to its wire, before it registers. */
    protected abstract void attach(RxeDevice d, RxeWire wire);

    /** Disconnects a device before it is closed. */
    protected void detach(RxeDevice d) {
    }

    /** Releases the wires once every device is closed. */
    protected abstract void closeWires();

    private IbDevice add(String ip, long mac) {
        try {
            RxeWire wire = wireFor(mac);
            RxeDevice d = new RxeDevice("rxe%d", List.of(InetAddress.getByName(ip)), 1500, 0x02_00_00_00_00_00L | mac,
                    wire);
            devices.add(d);
            attach(d, wire);
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
        return KNOWN_FAILURES;
    }

    @Override
    public void close() {
        List<String> leaks = new ArrayList<>();
        for (int i = devices.size() - 1; i >= 0; i--) {
            detach(devices.get(i));
            UnregisterReport r = devices.get(i).close();
            if (r != null && !r.leaked().isEmpty()) {
                leaks.add(r.deviceName() + " leaked " + r.leaked());
            }
        }
        devices.clear();
        closeWires();
        if (!leaks.isEmpty()) {
            throw new AssertionError("resources left at unregistration: " + leaks);
        }
    }
}
