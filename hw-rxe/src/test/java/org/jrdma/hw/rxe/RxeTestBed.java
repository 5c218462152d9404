package org.jrdma.hw.rxe;

/**
 * The conformance suites' bed on hw-rxe over a private fault-free {@link InMemoryWire}: devices on
 * 127.0.0.1 and 127.0.0.2.
 */
final class RxeTestBed extends AbstractRxeTestBed {
    private final InMemoryWire wire = new InMemoryWire(1);

    RxeTestBed() {
        start("127.0.0.1", "127.0.0.2");
    }

    @Override
    protected RxeWire wireFor(long mac) {
        return wire;
    }

    @Override
    protected void attach(RxeDevice d, RxeWire w) {
        wire.attach(d);
    }

    @Override
    protected void closeWires() {
        wire.close();
    }
}
