package org.jrdma.hw.rxe.net;

import java.net.InetAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.jrdma.hw.rxe.McastGroups;
import org.jrdma.hw.rxe.RxeDevice;

import io.netty.buffer.ByteBuf;

/**
 * The IP multicast groups the devices of one {@link NettyWire} joined, and the local copy of what they send to a
 * group (IP_MULTICAST_LOOP): the wire's sockets are bound to unicast addresses, so the kernel never hands them a
 * datagram sent to a group, not even one of their own. Each member device gets a copy through the wire's event
 * loop (never re-entrantly from send); the datagram itself still leaves for the network.
 */
final class McastLoop {
    final McastGroups groups = new McastGroups();

    /** Hands a copy of {@code packet} (not consumed) to every member of group {@code dst} on {@code loop}. */
    void deliver(Executor loop, InetAddress src, InetAddress dst, int srcPort, ByteBuf packet) {
        for (RxeDevice to : groups.members(dst)) {
            ByteBuf copy = packet.copy();
            try {
                loop.execute(() -> to.rcv(copy, src, dst, srcPort));
            } catch (RejectedExecutionException e) {
                copy.release(); // the wire is closing
            }
        }
    }
}
