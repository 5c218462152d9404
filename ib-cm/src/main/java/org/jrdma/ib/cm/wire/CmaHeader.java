package org.jrdma.ib.cm.wire;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

/**
 * {@code struct cma_hdr} of {@code cma.c}: the 36 bytes rdma_cm puts at the start of the private data of a
 * REQ (and of a SIDR_REQ) for an IP port space, followed by the user's private data.
 *
 * <pre>
 *  0 cma_version (0)    1 ip_version (4 or 6 in bits 7:4)    2 source port (be16)
 *  4 source address (16; IPv4 in bytes 16..19, the rest zero)
 * 20 destination address (16; IPv4 in bytes 32..35)
 * </pre>
 *
 * The destination port is not here: it is the low 16 bits of the service ID ({@code RdmaPortSpace.serviceId}).
 */
public final class CmaHeader {
    /** {@code sizeof(struct cma_hdr)}. */
    public static final int SIZE = 36;
    /** {@code CMA_VERSION}. */
    public static final int CMA_VERSION = 0x00;
    /** User private data that fits a REQ after the header: 92 - 36. */
    public static final int REQ_USER_DATA_SIZE = CmReq.PRIVATE_DATA_SIZE - SIZE;
    /** User private data that fits a SIDR_REQ after the header: 216 - 36. */
    public static final int SIDR_REQ_USER_DATA_SIZE = SidrReq.PRIVATE_DATA_SIZE - SIZE;

    private final int port;
    private final InetAddress srcAddr;
    private final InetAddress dstAddr;

    /** Source and destination must be of one family (both IPv4 or both IPv6). */
    public CmaHeader(InetAddress srcAddr, int port, InetAddress dstAddr) {
        Objects.requireNonNull(srcAddr, "source address");
        Objects.requireNonNull(dstAddr, "destination address");
        if ((srcAddr instanceof Inet4Address) != (dstAddr instanceof Inet4Address)) {
            throw new IllegalArgumentException("source " + srcAddr.getHostAddress() + " and destination "
                    + dstAddr.getHostAddress() + " are not of one IP version");
        }
        this.port = Wire.check("port", port, 16);
        this.srcAddr = srcAddr;
        this.dstAddr = dstAddr;
    }

    /** 4 or 6. */
    public int ipVersion() {
        return srcAddr instanceof Inet4Address ? 4 : 6;
    }

    /** The source (active side's) port. */
    public int port() {
        return port;
    }

    public InetAddress srcAddr() {
        return srcAddr;
    }

    public InetAddress dstAddr() {
        return dstAddr;
    }

    /**
     * The header at the start of {@code privateData} (REQ or SIDR_REQ private data, at least 36 bytes).
     * IllegalArgumentException for a cma_version other than 0 or an IP version other than 4 or 6.
     */
    public static CmaHeader decode(byte[] privateData) {
        if (privateData.length < SIZE) {
            throw new IllegalArgumentException("a CMA header is " + SIZE + " bytes, not " + privateData.length);
        }
        int version = privateData[0] & 0xff;
        if (version != CMA_VERSION) {
            throw new IllegalArgumentException("unknown CMA version " + version + " (expected " + CMA_VERSION + ")");
        }
        int ipVersion = (privateData[1] & 0xff) >>> 4;
        int port = (privateData[2] & 0xff) << 8 | privateData[3] & 0xff;
        try {
            if (ipVersion == 4) {
                return new CmaHeader(InetAddress.getByAddress(Arrays.copyOfRange(privateData, 16, 20)), port,
                        InetAddress.getByAddress(Arrays.copyOfRange(privateData, 32, 36)));
            }
            if (ipVersion == 6) {
                return new CmaHeader(Inet6Address.getByAddress(null, Arrays.copyOfRange(privateData, 4, 20), null),
                        port, Inet6Address.getByAddress(null, Arrays.copyOfRange(privateData, 20, 36), null));
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // lengths are right
        }
        throw new IllegalArgumentException("unknown CMA IP version " + ipVersion + " (expected 4 or 6)");
    }

    /** The user's private data after the header: bytes 36.. of {@code privateData}. */
    public static byte[] userData(byte[] privateData) {
        return Arrays.copyOfRange(privateData, Math.min(SIZE, privateData.length), privateData.length);
    }

    /** The 92 bytes of REQ private data: this header, then {@code userData} (at most 56 bytes), zero-padded. */
    public byte[] encode(byte[] userData) {
        return encode(userData, CmReq.PRIVATE_DATA_SIZE, "REQ");
    }

    /** The 216 bytes of SIDR_REQ private data: this header, then {@code userData} (at most 180 bytes), zero-padded. */
    public byte[] encodeSidr(byte[] userData) {
        return encode(userData, SidrReq.PRIVATE_DATA_SIZE, "SIDR_REQ");
    }

    private byte[] encode(byte[] userData, int size, String msg) {
        byte[] user = userData == null ? new byte[0] : userData;
        if (user.length > size - SIZE) {
            throw new IllegalArgumentException("rdma_cm " + msg + " user private data is at most " + (size - SIZE)
                    + " bytes, not " + user.length);
        }
        byte[] b = new byte[size];
        b[0] = CMA_VERSION;
        b[1] = (byte) (ipVersion() << 4);
        b[2] = (byte) (port >>> 8);
        b[3] = (byte) port;
        byte[] s = srcAddr.getAddress();
        byte[] d = dstAddr.getAddress();
        System.arraycopy(s, 0, b, 20 - s.length, s.length);
        System.arraycopy(d, 0, b, 36 - d.length, d.length);
        System.arraycopy(user, 0, b, SIZE, user.length);
        return b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmaHeader && port == ((CmaHeader) o).port && srcAddr.equals(((CmaHeader) o).srcAddr)
                && dstAddr.equals(((CmaHeader) o).dstAddr);
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, srcAddr, dstAddr);
    }

    @Override
    public String toString() {
        return "cma_hdr v" + CMA_VERSION + " ipv" + ipVersion() + " " + srcAddr.getHostAddress() + ":" + port + " -> "
                + dstAddr.getHostAddress();
    }
}
