package org.jrdma.ulp.ipoib.tun;

import java.io.IOException;
import java.nio.ByteBuffer;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;

/**
 * A Linux TUN device ({@code IFF_TUN | IFF_NO_PI}: one IP packet per read and write, no packet-information
 * header), as {@code Documentation/networking/tuntap.rst} opens it: {@code open("/dev/net/tun")} then
 * {@code ioctl(TUNSETIFF)}. Non-persistent: closing the descriptor removes the device. Non-blocking: {@link #read}
 * waits in {@code poll} with a timeout, so the reading thread notices a close.
 */
final class TunDevice implements AutoCloseable {
    static final String CLONE_DEVICE = "/dev/net/tun";
    private static final long TUNSETIFF = 0x400454caL; // _IOW('T', 202, int)
    private static final long TUNSETCARRIER = 0x400454e2L; // _IOW('T', 226, int), Linux 5.0
    private static final short IFF_TUN = 0x0001;
    private static final short IFF_NO_PI = 0x1000;
    private static final int IFNAMSIZ = 16;
    private static final int IFREQ_SIZE = 40;
    /** The largest IP packet (an IPoIB connected-mode MTU of 65520 fits). */
    static final int MAX_PACKET = 65536;

    private final LibC libc;
    private final String name;
    private final Memory pollfd = new Memory(8);
    private final Memory rbuf = new Memory(MAX_PACKET);
    private final Memory wbuf = new Memory(MAX_PACKET);
    private volatile int fd;

    private TunDevice(LibC libc, int fd, String name) {
        this.libc = libc;
        this.fd = fd;
        this.name = name;
    }

    /**
     * Creates the TUN device {@code name} (a {@code %d} in it picks the lowest free number, as the kernel does).
     *
     * @throws IOException with the kernel's reason, and what it needs when that is a permission
     */
    static TunDevice open(String name) throws IOException {
        if (name.isEmpty() || name.length() >= IFNAMSIZ || name.contains("/") || name.contains(" ")) {
            throw new IOException("\"" + name + "\" is not a valid interface name (1 to 15 characters, no '/' or space)");
        }
        LibC libc = LibC.INSTANCE;
        int fd = libc.open(CLONE_DEVICE, LibC.O_RDWR | LibC.O_NONBLOCK | LibC.O_CLOEXEC);
        if (fd < 0) {
            int errno = Native.getLastError();
            throw new IOException("cannot open " + CLONE_DEVICE + ": " + libc.strerror(errno) + needs(errno));
        }
        try (Memory ifr = new Memory(IFREQ_SIZE)) {
            ifr.clear();
            ifr.setString(0, name, "US-ASCII");
            ifr.setShort(IFNAMSIZ, (short) (IFF_TUN | IFF_NO_PI));
            if (libc.ioctl(fd, new NativeLong(TUNSETIFF), ifr) < 0) {
                int errno = Native.getLastError();
                libc.close(fd);
                throw new IOException("TUNSETIFF " + name + ": " + libc.strerror(errno) + needs(errno));
            }
            return new TunDevice(libc, fd, ifr.getString(0, "US-ASCII"));
        }
    }

    private static String needs(int errno) {
        return errno == 1 || errno == 13 ? " (a TUN device needs root or CAP_NET_ADMIN)"
                : errno == 2 || errno == 19 ? " (no TUN support: modprobe tun)" : "";
    }

    /** The name the kernel gave the device. */
    String name() {
        return name;
    }

    /**
     * Waits up to {@code timeoutMs} for a packet.
     *
     * @return the packet, a view of the device's read buffer valid until the next read; null if none came in time
     * @throws IOException when the device is closed or the read fails
     */
    ByteBuffer read(int timeoutMs) throws IOException {
        int f = fd;
        if (f < 0) {
            throw new IOException(name + " is closed");
        }
        NativeLong n = libc.read(f, rbuf, new NativeLong(MAX_PACKET));
        if (n.longValue() < 0) {
            int errno = Native.getLastError();
            if (errno != LibC.EAGAIN && errno != LibC.EINTR) {
                throw new IOException("read " + name + ": " + libc.strerror(errno));
            }
            pollfd.setInt(0, f);
            pollfd.setShort(4, LibC.POLLIN);
            pollfd.setShort(6, (short) 0);
            libc.poll(pollfd, 1, timeoutMs);
            return null;
        }
        return rbuf.getByteBuffer(0, n.longValue());
    }

    /** Hands one IP packet to the kernel (a TUN write never blocks: the kernel queues or drops it). */
    void write(ByteBuffer packet) throws IOException {
        int f = fd;
        int len = packet.remaining();
        if (f < 0 || len > MAX_PACKET) {
            throw new IOException(f < 0 ? name + " is closed" : "packet of " + len + " bytes");
        }
        synchronized (wbuf) {
            wbuf.getByteBuffer(0, len).put(packet.duplicate());
            NativeLong n = libc.write(f, wbuf, new NativeLong(len));
            if (n.longValue() < 0) {
                throw new IOException("write " + name + ": " + libc.strerror(Native.getLastError()));
            }
        }
    }

    /** {@code TUNSETCARRIER}: the device's carrier, as {@code ip link} shows it (LOWER_UP, NO-CARRIER). */
    void setCarrier(boolean on) {
        try (Memory v = new Memory(4)) {
            v.setInt(0, on ? 1 : 0);
            libc.ioctl(fd, new NativeLong(TUNSETCARRIER), v); // best effort: kernels before 5.0 lack it
        }
    }

    /**
     * Closes the descriptor, which removes the device. Call it on the reading thread: a descriptor closed under a
     * running {@code read} could be reused by the next {@code open} and read from. Writes hold the same lock.
     */
    @Override
    public void close() {
        synchronized (wbuf) {
            int f = fd;
            fd = -1;
            if (f >= 0) {
                libc.close(f);
            }
        }
    }
}
