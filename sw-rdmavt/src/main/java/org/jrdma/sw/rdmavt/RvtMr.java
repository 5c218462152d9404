package org.jrdma.sw.rdmavt;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DriverMr;

/**
 * A memory region over a {@link ByteBuffer}: I/O virtual address {@code iova} is byte 0 of the
 * registered range. Keys are {@code index << 8 | key byte} (lkey == rkey, as rxe). A fast-registration
 * MR starts FREE and becomes VALID with a REG_MR work request; LOCAL_INV and SEND_WITH_INV make it
 * FREE again.
 */
public final class RvtMr extends RvtMem implements DriverMr {
    public enum Type {
        USER, FAST_REG
    }

    final Type type;
    final RvtPd pd;
    final int index;
    final int maxNumSg;
    volatile int keyByte;
    volatile ByteBuffer buf;
    volatile long iova;
    volatile long length;
    volatile int access;
    /** Mapping set by {@code ib_map_mr_sg}, made valid by the next REG_MR. */
    ByteBuffer pendingBuf;
    long pendingIova;
    /** Windows bound to this region: it cannot be deregistered while there are any. */
    final AtomicInteger boundWindows = new AtomicInteger();

    RvtMr(Type type, RvtPd pd, int index, int keyByte, int maxNumSg) {
        this.type = type;
        this.pd = pd;
        this.index = index;
        this.keyByte = keyByte & 0xff;
        this.maxNumSg = maxNumSg;
        this.state = type == Type.USER ? State.VALID : State.FREE;
    }

    void set(ByteBuffer buffer, long iova, int access) {
        this.buf = buffer.slice();
        this.iova = iova;
        this.length = buf.remaining();
        this.access = access;
    }

    @Override
    public int key() {
        return index << 8 | keyByte;
    }

    @Override
    public RvtPd pd() {
        return pd;
    }

    @Override
    public int lkey() {
        return key();
    }

    @Override
    public int rkey() {
        return key();
    }

    @Override
    public long iova() {
        return iova;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int access() {
        return access;
    }

    public Type type() {
        return type;
    }

    /** The registered memory, index 0 at {@link #iova()}. */
    public ByteBuffer buffer() {
        return buf;
    }

    boolean inRange(long addr, long len) {
        long off = addr - iova;
        return off >= 0 && len >= 0 && off <= length && len <= length - off;
    }

    /**
     * {@code mr_check_range} and the access checks of {@code lookup_mr}: may {@code pd} touch
     * {@code [addr, addr + len)} with {@code need} (Access flags; 0 for a local read)?
     */
    public MemError check(RvtPd pd, long addr, long len, int need) {
        if (state != State.VALID) {
            return MemError.BAD_KEY;
        }
        if (this.pd != pd) {
            return MemError.BAD_PD;
        }
        if ((access & need) != need) {
            return MemError.NO_ACCESS;
        }
        return inRange(addr, len) ? MemError.NONE : MemError.OUT_OF_BOUNDS;
    }

    /** Byte offset of {@code addr} in {@link #buffer()}; the range was checked. */
    int offset(long addr) {
        return (int) (addr - iova);
    }

    /** {@code ib_map_mr_sg}: remember the mapping the next REG_MR validates. */
    void map(ByteBuffer buffer, long iova) {
        if (type != Type.FAST_REG) {
            throw new VerbsException(Errno.EINVAL, "map: MR " + Integer.toHexString(key()) + " is not a fast-registration MR");
        }
        long pages = (buffer.remaining() + (iova & 4095) + 4095) / 4096;
        if (pages > maxNumSg) {
            throw new VerbsException(Errno.EINVAL, "map: " + pages + " pages exceed max_num_sg " + maxNumSg);
        }
        synchronized (this) {
            pendingBuf = buffer.slice();
            pendingIova = iova;
        }
    }

    /** REG_MR: the pending mapping becomes the region, with a new key byte and access. */
    synchronized MemError fastReg(int newKeyByte, int access) {
        if (type != Type.FAST_REG || state != State.FREE || pendingBuf == null) {
            return MemError.BAD_KEY;
        }
        try {
            Access.checkMrAccess(access);
        } catch (VerbsException e) {
            return MemError.NO_ACCESS;
        }
        set(pendingBuf, pendingIova, access);
        this.keyByte = newKeyByte & 0xff;
        state = State.VALID;
        return MemError.NONE;
    }

    /** LOCAL_INV / SEND_WITH_INV: the key dies. User MRs cannot be invalidated (rxe_invalidate_mr). */
    synchronized MemError invalidate(int key, RvtPd by) {
        if (type != Type.FAST_REG || key != key() || state != State.VALID) {
            return MemError.BAD_KEY;
        }
        if (by != pd) {
            return MemError.BAD_PD;
        }
        if (boundWindows.get() > 0) {
            return MemError.NO_ACCESS;
        }
        state = State.FREE;
        return MemError.NONE;
    }
}
