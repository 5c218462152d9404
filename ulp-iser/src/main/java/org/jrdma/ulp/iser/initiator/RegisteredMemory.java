package org.jrdma.ulp.iser.initiator;

import java.nio.ByteBuffer;
import org.jrdma.ulp.iser.IserIoBuffer;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.IserConnection;

/**
 * An {@link IserIoBuffer} of one session: the memory and its registration on the connection it was last used on
 * (ib_iser registers a bio's pages per task with a fast registration; here the memory is registered once per
 * connection and a task advertises a window of it). A reinstated session's new connection registers it again; the
 * old registration went with the old connection's PD. Tasks in flight hold it: {@link #close()} deregisters when
 * the last one ends.
 */
final class RegisteredMemory implements IserIoBuffer {
    private final Object session;
    private final ByteBuffer memory;
    private IserConnection on;
    private IserBuffer registration;
    private int inFlight;
    private boolean closed;

    RegisteredMemory(Object session, ByteBuffer memory) {
        if (!memory.isDirect() || memory.isReadOnly()) {
            throw new IllegalArgumentException("iSER I/O memory must be a writable direct ByteBuffer");
        }
        this.session = session;
        this.memory = memory.duplicate().clear().slice();
    }

    /** {@code b} as this session's registered memory. */
    static RegisteredMemory of(Object session, IserIoBuffer b) {
        if (!(b instanceof RegisteredMemory m) || m.session != session) {
            throw new IllegalArgumentException("the I/O buffer is not one of this session's");
        }
        return m;
    }

    @Override
    public ByteBuffer buffer() {
        return memory.duplicate().clear();
    }

    @Override
    public int capacity() {
        return memory.capacity();
    }

    /** {@code length} bytes from {@code offset}, as a task's data (counted in flight until {@link #end}). */
    synchronized ByteBuffer begin(int offset, long length) {
        if (closed) {
            throw new IllegalStateException("the I/O buffer is closed");
        }
        if (offset < 0 || length < 1 || offset + length > memory.capacity()) {
            throw new IllegalArgumentException(length + " bytes at offset " + offset + " do not fit the I/O buffer of "
                    + memory.capacity() + " bytes");
        }
        inFlight++;
        return memory.duplicate().position(offset).limit(offset + (int) length).slice();
    }

    /** A task on it ended. */
    synchronized void end() {
        if (--inFlight == 0 && closed) {
            deregister();
        }
    }

    /** The STag window a task advertises: {@code length} bytes at {@code offset}, registered on {@code conn}. */
    synchronized IserBuffer window(IserConnection conn, int offset, int length) {
        if (conn != on) {
            deregister();
            registration = conn.buffers().register(memory);
            on = conn;
        }
        return new Window(registration, offset, length);
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            if (inFlight == 0) {
                deregister();
            }
        }
    }

    private void deregister() {
        if (registration != null) {
            registration.close();
            registration = null;
            on = null;
        }
    }

    /** Part of the registration; closing it leaves the registration alone. */
    private record Window(IserBuffer whole, int offset, int length) implements IserBuffer {
        @Override public ByteBuffer buffer() { return whole.buffer().position(offset).limit(offset + length).slice(); }
        @Override public int capacity() { return length; }
        @Override public int lkey() { return whole.lkey(); }
        @Override public int rkey() { return whole.rkey(); }
        @Override public long va() { return whole.va() + offset; }
        @Override public void close() { }
    }
}
