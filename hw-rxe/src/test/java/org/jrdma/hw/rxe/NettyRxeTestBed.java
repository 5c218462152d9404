package org.jrdma.hw.rxe;

import java.util.IdentityHashMap;
import java.util.Map;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetIcrc;

/**
 * The conformance suites' bed on hw-rxe over the real transport: two RxeDevices on 127.X.Y.1 and
 * 127.X.Y.2 (random X, Y), each with its own {@link NettyWire} bound on UDP 4791 (epoll where
 * available), packets through the kernel's loopback.
 */
final class NettyRxeTestBed extends AbstractRxeTestBed {
    private final NettyWire.Transport transport;
    private final Map<RxeDevice, NettyWire> wires = new IdentityHashMap<>();
    /** Both devices on one wire (null: a wire each). */
    private NettyWire shared;
    private final boolean share;

    NettyRxeTestBed() {
        this(NettyWire.Transport.AUTO);
    }

    NettyRxeTestBed(NettyWire.Transport t) {
        this(t, false);
    }

    /** Both devices on one NettyWire: what reaches the other device without the kernel (multicast, see NOTES). */
    static NettyRxeTestBed sharedWire() {
        return new NettyRxeTestBed(NettyWire.Transport.AUTO, true);
    }

    private NettyRxeTestBed(NettyWire.Transport t, boolean share) {
        this.transport = t;
        this.share = share;
        String net = randomLoopbackNet();
        start(net + "1", net + "2");
    }

    /**
     * {@code 127.X.Y.} with random X, Y: all of 127/8 is on lo, so concurrent builds on one host do not collide
     * on UDP 4791 (the fixed RoCE port).
     */
    static String randomLoopbackNet() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        return "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
    }

    @Override
    protected RxeWire wireFor(long mac) {
        if (share && shared != null) {
            return shared;
        }
        shared = new NettyWire(transport, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "t" + mac);
        return shared;
    }

    @Override
    protected void attach(RxeDevice d, RxeWire w) {
        NettyWire wire = (NettyWire) w;
        wires.put(d, wire);
        d.icrcCheck(RxeNetIcrc.receiveCheck());
        wire.attach(d);
    }

    @Override
    protected void detach(RxeDevice d) {
        wires.get(d).detach(d);
    }

    @Override
    protected void closeWires() {
        wires.values().forEach(NettyWire::close); // closing a wire twice is nothing
        wires.clear();
    }
}
