package org.jrdma.itest;

import static org.junit.jupiter.api.Assertions.fail;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where the rxe tests put their two devices: 127.X.Y.1 and 127.X.Y.2 on {@code lo} (random X, Y: all of 127/8 is
 * on loopback, so concurrent builds on one host do not collide on the RoCE port).
 */
final class RxeAddresses {
    /**
     * The RoCEv2 UDP port, hw-rxe's {@code RxeWire.ROCE_V2_UDP_DPORT}: restated because hw-rxe keeps its wire
     * package private to its bundle, so this bundle cannot import it.
     */
    static final int ROCE_PORT = 4791;

    private RxeAddresses() {
    }

    /** Two addresses 127.X.Y.1 and 127.X.Y.2 whose {@link #ROCE_PORT} is free (another build may hold some). */
    static InetAddress[] pickFreePair() throws UnknownHostException {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 20; attempt++) {
            String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
            InetAddress a = InetAddress.getByName(net + "1");
            InetAddress b = InetAddress.getByName(net + "2");
            if (free(a) && free(b)) {
                return new InetAddress[] {a, b};
            }
        }
        return fail("no free 127.X.Y.1/.2 pair on UDP " + ROCE_PORT);
    }

    /** UDP {@link #ROCE_PORT} on {@code a} can be bound (nothing holds it). */
    static boolean free(InetAddress a) {
        try (DatagramSocket s = new DatagramSocket(null)) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(a, ROCE_PORT));
            return true;
        } catch (SocketException e) {
            return false;
        }
    }
}
