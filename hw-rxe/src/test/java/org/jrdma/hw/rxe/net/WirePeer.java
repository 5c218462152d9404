package org.jrdma.hw.rxe.net;

import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** What the wire tests share: a random loopback net, and a plain socket's next datagram. */
final class WirePeer {
    private WirePeer() {
    }

    /** {@code 127.X.Y.}: concurrent builds on one host do not collide on UDP 4791. */
    static String randomNet() {
        return "127." + ThreadLocalRandom.current().nextInt(16, 250) + "." + ThreadLocalRandom.current().nextInt(1, 250)
                + ".";
    }

    /** The next datagram {@code peer} receives (at most {@code capacity} bytes), or null after 5 s. */
    static byte[] receive(DatagramChannel peer, int capacity) throws Exception {
        ByteBuffer in = ByteBuffer.allocate(capacity);
        peer.configureBlocking(false);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (peer.receive(in) == null) {
            if (System.nanoTime() > end) {
                return null;
            }
            Thread.sleep(1);
        }
        in.flip();
        byte[] c = new byte[in.remaining()];
        in.get(c);
        return c;
    }
}
