package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC exactly as Linux rxe computes it ({@code rxe_icrc_hdr()}, {@code rxe_icrc_check()},
 * {@code rxe_icrc_generate()} in rxe_icrc.c).
 *
 * <p>ICRC = standard CRC-32 (IEEE 802.3, reflected 0xEDB88320, as {@link CRC32}) over:
 * <ol>
 * <li>8 bytes 0xFF standing in for the masked LRH (rxe starts {@code crc32_le} from the seed 0xdebb20e3,
 * which is the raw CRC state after exactly these 8 bytes);</li>
 * <li>the IP header with the variant fields set to all ones. IPv4 (20 bytes): TOS (DSCP+ECN) = 0xff,
 * TTL = 0xff, header checksum = 0xffff. IPv6 (40 bytes): the 4 traffic-class bits in byte 0 = 0xf, bytes 1-3
 * (rest of traffic class and the flow label) = 0xff, hop limit = 0xff;</li>
 * <li>the UDP header with checksum = 0xffff;</li>
 * <li>the BTH with byte 4 (IBA resv8a: FECN, BECN, resv6a) = 0xff ({@code bth->qpn |= ~BTH_QPN_MASK});</li>
 * <li>everything after the BTH up to the ICRC: extension headers, payload, pad.</li>
 * </ol>
 * The value {@link CRC32#getValue()} returns is what rxe stores ({@code ~crc32_le(...)}); it goes on the wire
 * <b>little-endian</b> (rxe writes the u32 in CPU order on x86; verified against the Linux captures, where
 * Wireshark's "Invariant CRC" field shows the same 4 bytes read big-endian).
 *
 * <p>Note for a UDP-socket transport: the IPv4 Identification, total length and flags/fragment offset are
 * <em>not</em> masked, so an IPv4 ICRC depends on the IP ID the kernel chose for the datagram (rxe's
 * captures show per-destination counters, not 0). {@link #ipv4} therefore takes the IP ID explicitly.
 * Nothing in IPv6 is hidden that way.
 *
 * <p>Like rxe, the pseudo header is always a fixed 20-byte IPv4 / 40-byte IPv6 header followed by 8 UDP bytes
 * (rxe never sends IPv4 options or IPv6 extension headers, and {@link #ofIpPacket} copies the same contiguous
 * bytes the kernel does).
 *
 * <p>An instance holds a {@link CRC32} and scratch space and is <b>not thread-safe</b>: keep one per thread
 * (event loop). Computing never allocates: heap buffers go to {@link CRC32} as arrays, plain (pooled or
 * unpooled) direct buffers through their internal NIO buffer, and anything else (composite, sliced,
 * duplicated direct buffers) is streamed through a fixed scratch array.
 */
public final class Icrc {
    public static final int IPV4_HDR_BYTES = 20;
    public static final int IPV6_HDR_BYTES = 40;
    public static final int UDP_HDR_BYTES = 8;
    /** The CRC state rxe starts from: {@code crc32_le} state after 8 bytes 0xFF from ~0. */
    public static final int RXE_SEED = 0xdebb20e3;
    /** IPv4 flags/fragment offset with only DF set, what rxe's prepare4() sends. */
    public static final int IPV4_DF = 0x4000;

    private static final int LRH_BYTES = 8;
    private static final int UDP_PROTO = 17;

    private final CRC32 crc = new CRC32();
    private final byte[] pseudo = new byte[LRH_BYTES + IPV6_HDR_BYTES + UDP_HDR_BYTES + Bth.BYTES];
    private final byte[] chunk = new byte[256];

    public Icrc() {
        for (int i = 0; i < LRH_BYTES; i++) {
            pseudo[i] = (byte) 0xff;
        }
    }

    /**
     * ICRC of a packet carried over IPv4, from the header fields the ICRC covers.
     *
     * @param srcAddr IPv4 source address (big-endian int, {@code 192.0.2.10 = 0xc000020a})
     * @param dstAddr IPv4 destination address
     * @param ipId the IP Identification of this datagram (covered by the ICRC)
     * @param flagsFragOff IPv4 flags and fragment offset; rxe sends {@link #IPV4_DF}
     * @param srcPort UDP source port
     * @param dstPort UDP destination port (4791)
     * @param b the buffer holding the UDP payload
     * @param bthOffset absolute offset of the BTH (start of the UDP payload)
     * @param length UDP payload length including the 4-byte ICRC (at least 16)
     * @return the ICRC, to be stored or compared little-endian
     */
    public int ipv4(int srcAddr, int dstAddr, int ipId, int flagsFragOff, int srcPort, int dstPort, ByteBuf b,
            int bthOffset, int length) {
        checkLength(length);
        return finish(pseudoIpv4(srcAddr, dstAddr, ipId, flagsFragOff, srcPort, dstPort, length), b, bthOffset, length);
    }

    /** Fills the masked LRH, IPv4 and UDP headers of {@link #pseudo}; returns where the BTH goes. */
    private int pseudoIpv4(int srcAddr, int dstAddr, int ipId, int flagsFragOff, int srcPort, int dstPort, int length) {
        byte[] p = pseudo;
        int i = LRH_BYTES;
        int totalLength = IPV4_HDR_BYTES + UDP_HDR_BYTES + length;
        p[i] = 0x45;
        p[i + 1] = (byte) 0xff; // TOS masked
        put16(p, i + 2, totalLength);
        put16(p, i + 4, ipId);
        put16(p, i + 6, flagsFragOff);
        p[i + 8] = (byte) 0xff; // TTL masked
        p[i + 9] = UDP_PROTO;
        p[i + 10] = (byte) 0xff; // header checksum masked
        p[i + 11] = (byte) 0xff;
        put32(p, i + 12, srcAddr);
        put32(p, i + 16, dstAddr);
        i += IPV4_HDR_BYTES;
        return putUdp(p, i, srcPort, dstPort, length);
    }

    /**
     * ICRC of a packet carried over IPv6, from the header fields the ICRC covers.
     *
     * @param srcAddr 16-byte IPv6 source address (read from {@code srcAddr[0..15]})
     * @param dstAddr 16-byte IPv6 destination address
     * @param srcPort UDP source port
     * @param dstPort UDP destination port (4791)
     * @param b the buffer holding the UDP payload
     * @param bthOffset absolute offset of the BTH (start of the UDP payload)
     * @param length UDP payload length including the 4-byte ICRC (at least 16)
     * @return the ICRC, to be stored or compared little-endian
     */
    public int ipv6(byte[] srcAddr, byte[] dstAddr, int srcPort, int dstPort, ByteBuf b, int bthOffset,
            int length) {
        checkLength(length);
        return finish(pseudoIpv6(srcAddr, dstAddr, srcPort, dstPort, length), b, bthOffset, length);
    }

    /** Fills the masked LRH, IPv6 and UDP headers of {@link #pseudo}; returns where the BTH goes. */
    private int pseudoIpv6(byte[] srcAddr, byte[] dstAddr, int srcPort, int dstPort, int length) {
        byte[] p = pseudo;
        int i = LRH_BYTES;
        p[i] = 0x6f; // version 6, traffic class high nibble masked
        p[i + 1] = (byte) 0xff; // traffic class low nibble + flow label masked
        p[i + 2] = (byte) 0xff;
        p[i + 3] = (byte) 0xff;
        put16(p, i + 4, UDP_HDR_BYTES + length); // payload length
        p[i + 6] = UDP_PROTO; // next header
        p[i + 7] = (byte) 0xff; // hop limit masked
        System.arraycopy(srcAddr, 0, p, i + 8, 16);
        System.arraycopy(dstAddr, 0, p, i + 24, 16);
        i += IPV6_HDR_BYTES;
        return putUdp(p, i, srcPort, dstPort, length);
    }

    /**
     * {@link #ipv4} of a packet whose payload is not in {@code head} but elsewhere (a send gathered from the
     * memory region, hw-rxe/NOTES.md "Gathered sends"): the packet is {@code head[bthOffset, bthOffset + hdrLen)},
     * then {@code payloadLen} bytes of {@code payload} from {@code payloadIndex}, then the rest of {@code head}
     * (pad and ICRC). The ICRC is the one of those bytes laid end to end, exactly as {@link #ipv4} computes it
     * for the contiguous packet.
     *
     * @param hdrLen BTH and extension headers, the bytes of {@code head} before the payload
     * @param length UDP payload length of the whole packet ({@code head}'s part plus {@code payloadLen})
     */
    public int ipv4(int srcAddr, int dstAddr, int ipId, int flagsFragOff, int srcPort, int dstPort, ByteBuf head,
            int bthOffset, int hdrLen, java.nio.ByteBuffer payload, int payloadIndex, int payloadLen, int length) {
        checkLength(length);
        return gathered(pseudoIpv4(srcAddr, dstAddr, ipId, flagsFragOff, srcPort, dstPort, length), head, bthOffset,
                hdrLen, payload, payloadIndex, payloadLen, length);
    }

    /** {@link #ipv6} of a gathered packet: see the gathered {@link #ipv4}. */
    public int ipv6(byte[] srcAddr, byte[] dstAddr, int srcPort, int dstPort, ByteBuf head, int bthOffset, int hdrLen,
            java.nio.ByteBuffer payload, int payloadIndex, int payloadLen, int length) {
        checkLength(length);
        return gathered(pseudoIpv6(srcAddr, dstAddr, srcPort, dstPort, length), head, bthOffset, hdrLen, payload,
                payloadIndex, payloadLen, length);
    }

    /** The headers after the BTH, the payload where it lies, then the pad that follows it in the head. */
    private int gathered(int i, ByteBuf head, int bthOffset, int hdrLen, java.nio.ByteBuffer payload, int index,
            int len, int length) {
        if (hdrLen < Bth.BYTES || len < 0 || index < 0 || index > payload.capacity() - len) {
            throw new IllegalArgumentException("gathered packet: headers " + hdrLen + ", payload [" + index + ", +"
                    + len + ") of " + payload.capacity());
        }
        int inHead = length - len;
        checkLength(inHead);
        CRC32 c = start(i, head, bthOffset);
        update(c, head, bthOffset + Bth.BYTES, hdrLen - Bth.BYTES);
        if (len > 0) {
            c.update(payloadView(payload, index, len));
        }
        update(c, head, bthOffset + hdrLen, inHead - hdrLen - RxeWire.ICRC_BYTES);
        return (int) c.getValue();
    }

    /**
     * ICRC of a whole IPv4 or IPv6 packet starting at {@code ipOffset} (IP header, UDP header, BTH ... ICRC),
     * masking a copy of the headers the way rxe_icrc.c does. The UDP payload length comes from the UDP header.
     */
    public int ofIpPacket(ByteBuf b, int ipOffset) {
        int version = b.getUnsignedByte(ipOffset) >>> 4;
        byte[] p = pseudo;
        int i = LRH_BYTES;
        int udpOffset;
        int ipHdr;
        if (version == 4) {
            ipHdr = IPV4_HDR_BYTES;
            b.getBytes(ipOffset, p, i, IPV4_HDR_BYTES + UDP_HDR_BYTES);
            p[i + 1] = (byte) 0xff;
            p[i + 8] = (byte) 0xff;
            p[i + 10] = (byte) 0xff;
            p[i + 11] = (byte) 0xff;
            udpOffset = ipOffset + (b.getUnsignedByte(ipOffset) & 0x0f) * 4;
        } else if (version == 6) {
            ipHdr = IPV6_HDR_BYTES;
            b.getBytes(ipOffset, p, i, IPV6_HDR_BYTES + UDP_HDR_BYTES);
            p[i] = (byte) (p[i] | 0x0f);
            p[i + 1] = (byte) 0xff;
            p[i + 2] = (byte) 0xff;
            p[i + 3] = (byte) 0xff;
            p[i + 7] = (byte) 0xff;
            udpOffset = ipOffset + IPV6_HDR_BYTES;
        } else {
            throw new IllegalArgumentException("not an IP packet: version " + version);
        }
        i += ipHdr;
        p[i + 6] = (byte) 0xff; // UDP checksum masked
        p[i + 7] = (byte) 0xff;
        i += UDP_HDR_BYTES;
        int length = b.getUnsignedShort(udpOffset + 4) - UDP_HDR_BYTES;
        checkLength(length);
        return finish(i, b, udpOffset + UDP_HDR_BYTES, length);
    }

    /** The ICRC carried by the packet: the last 4 bytes of the UDP payload, little-endian. */
    public static int stored(ByteBuf b, int bthOffset, int length) {
        return b.getIntLE(bthOffset + length - RxeWire.ICRC_BYTES);
    }

    /** Writes {@code icrc} into the last 4 bytes of the UDP payload, little-endian. */
    public static void store(ByteBuf b, int bthOffset, int length, int icrc) {
        b.setIntLE(bthOffset + length - RxeWire.ICRC_BYTES, icrc);
    }

    private static int putUdp(byte[] p, int i, int srcPort, int dstPort, int length) {
        put16(p, i, srcPort);
        put16(p, i + 2, dstPort);
        put16(p, i + 4, UDP_HDR_BYTES + length);
        p[i + 6] = (byte) 0xff; // checksum masked
        p[i + 7] = (byte) 0xff;
        return i + UDP_HDR_BYTES;
    }

    /** The CRC of the pseudo headers ({@code i} bytes), the masked BTH and the rest of the packet, all in {@code b}. */
    private int finish(int i, ByteBuf b, int bthOffset, int length) {
        CRC32 c = start(i, b, bthOffset);
        update(c, b, bthOffset + Bth.BYTES, length - Bth.BYTES - RxeWire.ICRC_BYTES);
        return (int) c.getValue();
    }

    /** Puts the masked BTH after the pseudo headers ({@code i} bytes) and starts the CRC over both. */
    private CRC32 start(int i, ByteBuf b, int bthOffset) {
        byte[] p = pseudo;
        b.getBytes(bthOffset, p, i, Bth.BYTES);
        p[i + 4] = (byte) 0xff; // resv8a: FECN, BECN, resv6a
        i += Bth.BYTES;
        CRC32 c = crc;
        c.reset();
        c.update(p, 0, i);
        return c;
    }

    private void update(CRC32 c, ByteBuf b, int index, int len) {
        if (len == 0) {
            return;
        }
        if (b.hasArray()) {
            c.update(b.array(), b.arrayOffset() + index, len);
        } else if (b.isDirect() && b.unwrap() == null && b.nioBufferCount() == 1) {
            c.update(b.internalNioBuffer(index, len));
        } else if (b.isDirect() && b.hasMemoryAddress()) {
            ByteBuf root = b;
            while (root.unwrap() != null) {
                root = root.unwrap();
            }
            if (root.hasMemoryAddress() && root.memoryAddress() == b.memoryAddress() && root.capacity() == b.capacity()) {
                c.update(root.internalNioBuffer(index, len)); // a wrapper (leak detection): the packet's own buffer
            } else {
                c.update(view(root, b, index, len)); // a slice: packets of one GRO read share their root
            }
        } else {
            byte[] s = chunk;
            while (len > 0) {
                int n = Math.min(len, s.length);
                b.getBytes(index, s, 0, n);
                c.update(s, 0, n);
                index += n;
                len -= n;
            }
        }
    }

    /**
     * A NIO view of {@code b}'s bytes {@code [index, index + len)} through a view of its root buffer that this
     * instance keeps while the root stays the same. A receive thread reads into a ring of up to eight GRO buffers
     * in turn, so the last {@value #VIEWS} roots keep theirs: a view is made once per buffer, not per read.
     * Not the root's internal NIO buffer: several slices of one root may be checked at once on different threads.
     */
    private java.nio.ByteBuffer view(ByteBuf root, ByteBuf b, int index, int len) {
        long addr = root.memoryAddress();
        int cap = root.capacity();
        int k = 0;
        while (k < VIEWS && !(viewRoot[k] == root && viewAddr[k] == addr && viewCap[k] == cap)) {
            k++;
        }
        if (k == VIEWS) {
            k = nextView;
            nextView = (nextView + 1) % VIEWS;
            viewRoot[k] = root;
            viewAddr[k] = addr;
            viewCap[k] = cap;
            rootView[k] = root.nioBuffer(0, cap);
        }
        int off = (int) (b.memoryAddress() + index - addr);
        java.nio.ByteBuffer v = rootView[k];
        v.limit(off + len).position(off);
        return v;
    }

    /**
     * {@code [index, index + len)} of a gathered payload's buffer through a duplicate this instance keeps per
     * buffer (a memory region's buffer is shared by every thread; its own position is never touched). The
     * duplicate keeps the last region's memory reachable until this instance computes over another one.
     */
    private java.nio.ByteBuffer payloadView(java.nio.ByteBuffer src, int index, int len) {
        if (src != payloadSrc) {
            payloadSrc = src;
            payloadDup = src.duplicate();
        }
        payloadDup.clear();
        payloadDup.position(index).limit(index + len);
        return payloadDup;
    }

    private java.nio.ByteBuffer payloadSrc;
    private java.nio.ByteBuffer payloadDup;
    private static final int VIEWS = 8;
    private final ByteBuf[] viewRoot = new ByteBuf[VIEWS];
    private final long[] viewAddr = new long[VIEWS];
    private final int[] viewCap = new int[VIEWS];
    private final java.nio.ByteBuffer[] rootView = new java.nio.ByteBuffer[VIEWS];
    private int nextView;

    private static void checkLength(int length) {
        if (length < Bth.BYTES + RxeWire.ICRC_BYTES) {
            throw new IllegalArgumentException("UDP payload of " + length + " bytes cannot hold BTH and ICRC");
        }
    }

    private static void put16(byte[] p, int i, int v) {
        p[i] = (byte) (v >>> 8);
        p[i + 1] = (byte) v;
    }

    private static void put32(byte[] p, int i, int v) {
        p[i] = (byte) (v >>> 24);
        p[i + 1] = (byte) (v >>> 16);
        p[i + 2] = (byte) (v >>> 8);
        p[i + 3] = (byte) v;
    }
}
