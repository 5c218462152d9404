package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.Packets.ip;

import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.IpoibInterface;

/**
 * A manual measurement, not a test (timings stay out of unit tests): ib0 to ib1 on the managed loopback, one-way
 * UDP throughput with a window of 64 packets in flight, and echo round trips one at a time. Run with the test
 * classpath: {@code java -cp ... org.jrdma.ulp.ipoib.impl.IpoibRate [seconds] [connected]}; with {@code connected}
 * both interfaces are in connected mode and the one-way packets are full 65520-byte ones over RC.
 */
public final class IpoibRate {
    private IpoibRate() {
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 3;
        boolean connected = args.length > 1 && args[1].equals("connected");
        try (ManagedIbFabric ib = new ManagedIbFabric();
                IpoibFixture f = connected ? new IpoibFixture(ib, CmOptions.DEFAULT) : new IpoibFixture(ib)) {
            IbDevice a = ib.add(1);
            ib.add(1);
            ib.sweptBy(a, 0);
            f.register();
            IpoibInterface ib0 = f.up("ib0");
            IpoibInterface ib1 = f.up("ib1");
            ib0.addAddress(ip("10.0.0.1"), 24);
            ib1.addAddress(ip("10.0.0.2"), 24);
            if (connected) {
                ib0.setMode(org.jrdma.ulp.ipoib.IpoibMode.CONNECTED);
                ib1.setMode(org.jrdma.ulp.ipoib.IpoibMode.CONNECTED);
            }
            throughput(ib0, ib1, seconds);
            roundTrips(ib0, ib1, seconds);
            System.out.println("ib0 " + ib0.stats());
        }
    }

    static void throughput(IpoibInterface ib0, IpoibInterface ib1, long seconds) throws InterruptedException {
        Semaphore window = new Semaphore(64);
        ib1.setReceiver((i, p) -> window.release());
        byte[] pkt = Packets.udp("10.0.0.1", "10.0.0.2", 9, 9, new byte[ib0.mtu() - 28]);
        ib0.send(ByteBuffer.wrap(pkt)); // resolve first
        window.acquire(65);
        window.release(64);
        long n = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long t0 = System.nanoTime();
        while (System.nanoTime() < end) {
            if (!window.tryAcquire(5, TimeUnit.SECONDS)) {
                throw new IllegalStateException("a packet got lost: " + ib0.stats() + " / " + ib1.stats());
            }
            ib0.send(ByteBuffer.wrap(pkt));
            n++;
        }
        window.acquire(64);
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("one-way, %d-byte IP packets, window 64: %d packets in %.2f s = %.0f packets/s, %.1f MB/s%n",
                pkt.length, n, s, n / s, n * (double) pkt.length / s / 1e6);
    }

    static void roundTrips(IpoibInterface ib0, IpoibInterface ib1, long seconds) throws InterruptedException {
        LinkedBlockingQueue<byte[]> back = new LinkedBlockingQueue<>();
        ib1.setReceiver((i, p) -> {
            byte[] b = new byte[p.remaining()];
            p.get(b);
            b[20] = 0; // echo reply
            System.arraycopy(b, 12, b, 16, 4);
            System.arraycopy(ip("10.0.0.2").getAddress(), 0, b, 12, 4);
            i.send(ByteBuffer.wrap(b));
        });
        ib0.setReceiver((i, p) -> back.offer(new byte[0]));
        byte[] req = Packets.icmpEcho("10.0.0.1", "10.0.0.2", 8, 1, 1, new byte[56]);
        long n = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long t0 = System.nanoTime();
        while (System.nanoTime() < end) {
            ib0.send(ByteBuffer.wrap(req));
            if (back.poll(5, TimeUnit.SECONDS) == null) {
                throw new IllegalStateException("an echo got lost");
            }
            n++;
        }
        double us = (System.nanoTime() - t0) / 1e3 / n;
        System.out.printf("echo round trips, 84-byte packets: %d, %.1f us each%n", n, us);
    }
}
