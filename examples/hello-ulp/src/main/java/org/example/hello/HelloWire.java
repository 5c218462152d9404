package org.example.hello;

import java.nio.ByteBuffer;

/**
 * hello's protocol. The server's accept carries, as private data, where the client may RDMA WRITE (address,
 * rkey, length; big-endian, 16 bytes). Each client SEND is a request the server answers with one SEND:
 * <ul>
 * <li>{@link #ECHO} + payload: the payload back;</li>
 * <li>{@link #ECHO_RDMA} + a 4-byte length: that many bytes of its RDMA buffer back (what the client
 * wrote there; RC ordering puts the WRITE before this SEND).</li>
 * </ul>
 */
final class HelloWire {
    static final byte ECHO = 1;
    static final byte ECHO_RDMA = 2;
    static final int PRIVATE_DATA_LEN = 16;

    /** The peer's RDMA buffer. */
    record Remote(long addr, int rkey, int len) {
    }

    private HelloWire() {
    }

    static byte[] encode(Remote r) {
        return ByteBuffer.allocate(PRIVATE_DATA_LEN).putLong(r.addr()).putInt(r.rkey()).putInt(r.len()).array();
    }

    /** The remote buffer from an accept's private data; IllegalArgumentException if it is too short. */
    static Remote decode(byte[] privateData) {
        if (privateData == null || privateData.length < PRIVATE_DATA_LEN) {
            throw new IllegalArgumentException("hello: private data of " + (privateData == null ? 0 : privateData.length)
                    + " bytes, need " + PRIVATE_DATA_LEN);
        }
        ByteBuffer b = ByteBuffer.wrap(privateData);
        return new Remote(b.getLong(), b.getInt(), b.getInt());
    }
}
