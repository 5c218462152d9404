package org.jrdma.hw.rxe.net;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import io.netty.buffer.ByteBuf;
import io.netty.channel.epoll.Native;
import io.netty.channel.unix.IovArray;
import io.netty.channel.unix.Socket;

/**
 * UDP GSO sends ({@code sendmmsg(2)} with a {@code UDP_SEGMENT} control message per datagram) and UDP GRO
 * receives ({@code recvmsg(2)} with the {@code UDP_GRO} control message) on an epoll channel's socket, from any
 * thread, through Netty's own natives. They are package-private in Netty ({@code Native.sendmmsg/recvmsg},
 * {@code NativeDatagramPacketArray.NativeDatagramPacket}, whose {@code segmentSize} field the native code reads
 * for UDP_SEGMENT and fills from UDP_GRO), so they are looked up once by reflection; {@link #AVAILABLE} is false
 * if anything is missing (another Netty) or the kernel lacks UDP_SEGMENT, and the wire then sends and reads one
 * datagram per syscall as before.
 *
 * <p>A {@link Batch} (one per thread) holds up to {@value #MAX_MSGS} datagrams, each a run of packet buffers
 * (and, for gathered packets, payloads in memory regions) gathered by iovecs: no copy, the kernel joins them and
 * (GSO) cuts the result at the segment size again.
 */
final class EpollDgram {
    /** Datagrams per sendmmsg. */
    static final int MAX_MSGS = 64;
    /** Segments per GSO datagram: the kernel's UDP_MAX_SEGMENTS is 64 (128 since 6.x). */
    static final int MAX_SEGMENTS = 64;
    /** Largest UDP payload of one datagram (IPv4: 65535 - 20 - 8; IPv6 allows 65527, kept the same). */
    static final int MAX_PAYLOAD = 65507;
    private static final System.Logger LOG = System.getLogger("org.jrdma.hw.rxe.net");

    static final boolean AVAILABLE;
    private static final Constructor<?> NEW_ARRAY;
    private static final Method RELEASE_ARRAY;
    private static final MethodHandle NEW_PACKET;
    private static final MethodHandle INIT;
    private static final MethodHandle SENDMMSG;
    private static final MethodHandle RECVMSG;
    private static final MethodHandle SEGMENT_SIZE;
    private static final MethodHandle SET_MEMORY_ADDRESS;
    private static final MethodHandle SET_COUNT;
    private static final MethodHandle SET_SEGMENT_SIZE;
    private static final MethodHandle SENDER_ADDR;
    private static final MethodHandle SENDER_ADDR_LEN;
    private static final MethodHandle SENDER_PORT;
    private static final MethodHandle SENDER_SCOPE;
    private static final Field SOCKET_IPV6;
    private static final Class<?> PACKET;

    static {
        boolean ok = false;
        Constructor<?> newArray = null;
        Method releaseArray = null;
        MethodHandle newPacket = null, init = null, sendmmsg = null, recvmsg = null, seg = null,
                addr = null, addrLen = null, port = null, scope = null, setAddr = null, setCount = null, setSeg = null;
        Field ipv6 = null;
        Class<?> packet = null;
        try {
            ClassLoader cl = Native.class.getClassLoader();
            Class<?> array = Class.forName("io.netty.channel.epoll.NativeDatagramPacketArray", false, cl);
            packet = Class.forName("io.netty.channel.epoll.NativeDatagramPacketArray$NativeDatagramPacket", false, cl);
            MethodHandles.Lookup l = MethodHandles.lookup();
            newArray = array.getDeclaredConstructor();
            newArray.setAccessible(true);
            releaseArray = array.getDeclaredMethod("release");
            releaseArray.setAccessible(true);
            Constructor<?> np = packet.getDeclaredConstructor(array);
            np.setAccessible(true);
            newPacket = l.unreflectConstructor(np).asType(MethodType.methodType(Object.class, Object.class));
            Method in = packet.getDeclaredMethod("init", long.class, int.class, int.class, InetSocketAddress.class);
            in.setAccessible(true);
            init = l.unreflect(in).asType(MethodType.methodType(void.class, Object.class, long.class, int.class,
                    int.class, InetSocketAddress.class));
            Class<?> packets = java.lang.reflect.Array.newInstance(packet, 0).getClass();
            Method sm = Native.class.getDeclaredMethod("sendmmsg", int.class, boolean.class, packets, int.class, int.class);
            sm.setAccessible(true);
            sendmmsg = l.unreflect(sm).asType(MethodType.methodType(int.class, int.class, boolean.class, Object[].class,
                    int.class, int.class));
            Method rm = Native.class.getDeclaredMethod("recvmsg", int.class, boolean.class, packet);
            rm.setAccessible(true);
            recvmsg = l.unreflect(rm).asType(MethodType.methodType(int.class, int.class, boolean.class, Object.class));
            seg = getter(l, packet, "segmentSize");
            setAddr = setter(l, packet, "memoryAddress");
            setCount = setter(l, packet, "count");
            setSeg = setter(l, packet, "segmentSize");
            addr = getter(l, packet, "senderAddr");
            addrLen = getter(l, packet, "senderAddrLen");
            port = getter(l, packet, "senderPort");
            scope = getter(l, packet, "senderScopeId");
            ipv6 = Socket.class.getDeclaredField("ipv6");
            ipv6.setAccessible(true);
            Field f = Native.class.getDeclaredField("IS_SUPPORTING_UDP_SEGMENT");
            f.setAccessible(true);
            ok = f.getBoolean(null) && Native.IS_SUPPORTING_SENDMMSG;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "rxe: no UDP GSO/GRO through Netty's natives: " + e);
            ok = false;
        }
        AVAILABLE = ok;
        NEW_ARRAY = newArray;
        RELEASE_ARRAY = releaseArray;
        NEW_PACKET = newPacket;
        INIT = init;
        SENDMMSG = sendmmsg;
        RECVMSG = recvmsg;
        SEGMENT_SIZE = seg;
        SET_MEMORY_ADDRESS = setAddr;
        SET_COUNT = setCount;
        SET_SEGMENT_SIZE = setSeg;
        SENDER_ADDR = addr;
        SENDER_ADDR_LEN = addrLen;
        SENDER_PORT = port;
        SENDER_SCOPE = scope;
        SOCKET_IPV6 = ipv6;
        PACKET = packet;
    }

    private static MethodHandle getter(MethodHandles.Lookup l, Class<?> c, String name) throws ReflectiveOperationException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return l.unreflectGetter(f).asType(MethodType.methodType(f.getType(), Object.class));
    }

    private static MethodHandle setter(MethodHandles.Lookup l, Class<?> c, String name) throws ReflectiveOperationException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return l.unreflectSetter(f).asType(MethodType.methodType(void.class, Object.class, f.getType()));
    }

    private EpollDgram() {
    }

    /** Whether {@code s} is an AF_INET6 socket (what Netty's natives need to build the address). */
    static boolean ipv6(Socket s) {
        try {
            return SOCKET_IPV6.getBoolean(s);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object[] newPackets(int n) {
        try {
            Object outer = NEW_ARRAY.newInstance();
            Object[] p = (Object[]) java.lang.reflect.Array.newInstance(PACKET, n);
            for (int i = 0; i < n; i++) {
                p[i] = (Object) NEW_PACKET.invokeExact(outer);
            }
            RELEASE_ARRAY.invoke(outer); // its own iovec memory, unused: the packets only need it as their outer
            return p;
        } catch (Throwable t) {
            throw new IllegalStateException("rxe: cannot create Netty datagram packets", t);
        }
    }

    /** Each thread's {@link Batch}, shared by all wires (its iovec memory lives as long as the thread). */
    private static final ThreadLocal<Batch> BATCH = ThreadLocal.withInitial(Batch::new);

    /** This thread's batch (empty unless the caller is filling it). */
    static Batch batch() {
        return BATCH.get();
    }

    /**
     * Datagrams for one sendmmsg, each a run of buffers or memory ranges (iovecs) with an optional segment size.
     * One per thread ({@link #batch()}); the buffers stay owned by the caller. The iovecs are written into memory
     * of its own (Netty's {@code IovArray} takes only buffers, and a gathered packet's payload is a range of a
     * memory region).
     */
    static final class Batch {
        /** iovecs in all: room for {@value #MAX_MSGS} datagrams of up to 64 gathered packets (3 iovecs each). */
        private static final int IOV_CAP = 4096;
        private static final int ADDRESS_SIZE = io.netty.util.internal.PlatformDependent.addressSize();
        private static final int IOV_SIZE = 2 * ADDRESS_SIZE;
        private final Object[] msgs = newPackets(MAX_MSGS);
        private final java.nio.ByteBuffer iovMem = java.nio.ByteBuffer.allocateDirect(IOV_CAP * IOV_SIZE);
        private final long iovBase = io.netty.util.internal.PlatformDependent.directBufferAddress(iovMem);
        private int iovs;
        private int count;
        private int open = -1;
        private int openSeg;
        private InetSocketAddress openTo;

        int count() {
            return count;
        }

        /** Nothing begun or ended since the last {@link #clear}: a caller may use the batch for a send of its own. */
        boolean idle() {
            return count == 0 && open < 0;
        }

        /** Per-thread cache of the destinations sent to, as Netty's sendmmsg wants them (see {@link #address}). */
        private static final int ADDRESSES = 8;
        private final InetAddress[] addrOf = new InetAddress[ADDRESSES];
        private final int[] addrPort = new int[ADDRESSES];
        private final InetSocketAddress[] addr = new InetSocketAddress[ADDRESSES];
        private int addrNext;

        /**
         * {@code to:port} as an {@link InetSocketAddress}, the same object for as long as it stays in this thread's
         * small cache: no new object per datagram, and a datagram slot that last went there keeps its recipient
         * fields ({@link #end} compares by identity). Equal addresses (another {@code InetAddress} object for the
         * same peer, as a receive path may make) share an entry; IPv6 only with the same scope.
         */
        InetSocketAddress address(InetAddress to, int port) {
            for (int i = 0; i < ADDRESSES; i++) {
                InetAddress k = addrOf[i];
                if (k == to && addrPort[i] == port) {
                    return addr[i];
                }
            }
            for (int i = 0; i < ADDRESSES; i++) {
                InetAddress k = addrOf[i];
                if (k != null && addrPort[i] == port && k.equals(to) && (!(to instanceof java.net.Inet6Address t6)
                        || t6.getScopeId() == ((java.net.Inet6Address) k).getScopeId())) {
                    return addr[i];
                }
            }
            int i = addrNext;
            addrNext = (i + 1) % ADDRESSES;
            addrOf[i] = to;
            addrPort[i] = port;
            return addr[i] = new InetSocketAddress(to, port);
        }

        /** Starts a datagram to {@code to}; false if the batch is full. */
        boolean begin(InetSocketAddress to, int segmentSize) {
            if (count == MAX_MSGS || iovs > IOV_CAP - 3 * MAX_SEGMENTS) {
                return false;
            }
            open = iovs;
            openSeg = segmentSize;
            openTo = to;
            return true;
        }

        /** Adds a direct buffer's readable bytes to the datagram begun last. */
        void add(ByteBuf b) {
            add(b, b.readerIndex(), b.readableBytes());
        }

        /** Adds {@code len} bytes of a direct buffer from {@code index} to the datagram begun last. */
        void add(ByteBuf b, int index, int len) {
            add(b.memoryAddress() + index, len);
        }

        /** Adds {@code len} bytes of native memory at {@code address} to the datagram begun last. */
        void add(long address, int len) {
            if (len == 0) {
                return;
            }
            if (iovs == IOV_CAP) {
                throw new IllegalStateException("rxe: iovec array full");
            }
            long at = iovBase + (long) iovs * IOV_SIZE;
            if (ADDRESS_SIZE == 8) {
                io.netty.util.internal.PlatformDependent.putLong(at, address);
                io.netty.util.internal.PlatformDependent.putLong(at + 8, len);
            } else {
                io.netty.util.internal.PlatformDependent.putInt(at, (int) address);
                io.netty.util.internal.PlatformDependent.putInt(at + 4, len);
            }
            iovs++;
        }

        /** Per datagram slot: the destination its recipient fields were last set for. */
        private final InetSocketAddress[] slotTo = new InetSocketAddress[MAX_MSGS];

        /**
         * Ends the datagram begun last. Netty's {@code init} copies the destination out of a new array each time
         * ({@code InetAddress.getAddress()}); a slot that last went to the same destination keeps its recipient
         * fields, so only the iovecs and the segment size are set.
         */
        void end() {
            Object m = msgs[count];
            long iov = iovBase + (long) open * IOV_SIZE;
            try {
                if (slotTo[count] == openTo) {
                    SET_MEMORY_ADDRESS.invokeExact(m, iov);
                    SET_COUNT.invokeExact(m, iovs - open);
                    SET_SEGMENT_SIZE.invokeExact(m, openSeg);
                } else {
                    INIT.invokeExact(m, iov, iovs - open, openSeg, openTo);
                    slotTo[count] = openTo;
                }
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            count++;
            open = -1;
        }

        /**
         * sendmmsg on {@code socket}: how many of the datagrams the kernel took (0 when its buffer is full).
         *
         * @throws IOException on an error (the first datagram failed)
         */
        int send(Socket socket, boolean ipv6) throws IOException {
            try {
                return (int) SENDMMSG.invokeExact(socket.intValue(), ipv6, msgs, 0, count);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        void clear() {
            count = 0;
            open = -1;
            openTo = null;
            iovs = 0;
        }
    }

    /** One recvmsg into a buffer, with the sender and the GRO segment size. One per reading thread. */
    static final class Receiver {
        private final Object msg = newPackets(1)[0];
        private final IovArray iov = new IovArray();
        private final byte[] ip4 = new byte[4];
        private final byte[] last = new byte[16];
        private int lastLen;
        private int lastScope;
        private InetAddress lastAddr;
        /** After a {@link #read}: the sender's port and the segment size (0: not coalesced). */
        int port;
        int segmentSize;

        /**
         * recvmsg into {@code b}'s writable bytes ({@code len} at most).
         *
         * @return the bytes received, 0 if nothing was waiting (EAGAIN)
         */
        int read(Socket socket, boolean ipv6, ByteBuf b, int index, int len) throws IOException {
            iov.clear();
            if (!iov.add(b, index, len)) {
                throw new IllegalStateException("rxe: receive buffer not direct");
            }
            int n;
            try {
                INIT.invokeExact(msg, iov.memoryAddress(0), 1, 0, (InetSocketAddress) null);
                n = (int) RECVMSG.invokeExact(socket.intValue(), ipv6, msg);
                if (n > 0) {
                    segmentSize = (int) SEGMENT_SIZE.invokeExact(msg);
                    port = (int) SENDER_PORT.invokeExact(msg);
                }
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            return n;
        }

        /** The sender of the last datagram read (the same object as long as the sender stays the same). */
        InetAddress sender() throws UnknownHostException {
            byte[] a;
            int len;
            int scope;
            try {
                a = (byte[]) SENDER_ADDR.invokeExact(msg);
                len = (int) SENDER_ADDR_LEN.invokeExact(msg);
                scope = (int) SENDER_SCOPE.invokeExact(msg);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            if (lastAddr != null && len == lastLen && scope == lastScope && java.util.Arrays.equals(a, 0, len, last, 0, len)) {
                return lastAddr;
            }
            InetAddress r;
            if (len == 4) {
                System.arraycopy(a, 0, ip4, 0, 4);
                r = InetAddress.getByAddress(ip4);
            } else {
                r = java.net.Inet6Address.getByAddress(null, java.util.Arrays.copyOf(a, 16), scope);
            }
            System.arraycopy(a, 0, last, 0, len);
            lastLen = len;
            lastScope = scope;
            lastAddr = r;
            return r;
        }

        void release() {
            iov.release();
        }
    }
}
