package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.spi.DriverMw;

/**
 * A memory window ({@code rxe_mw.c}): a remote-access range onto an MR, bound by BIND_MW. Type 1
 * windows start VALID and belong to their PD; type 2 start FREE, are bound to one QP, and are killed
 * by LOCAL_INV or SEND_WITH_INV.
 */
public final class RvtMw extends RvtMem implements DriverMw {
    final MwType type;
    final RvtPd pd;
    final int index;
    volatile int keyByte;
    volatile RvtMr mr;
    volatile long addr;
    volatile long length;
    volatile int access;
    /** The QP a type 2 window is bound to. */
    volatile RvtQp qp;

    RvtMw(MwType type, RvtPd pd, int index, int keyByte) {
        this.type = type;
        this.pd = pd;
        this.index = index;
        this.keyByte = keyByte & 0xff;
        this.state = type == MwType.TYPE_2 ? State.FREE : State.VALID;
    }

    @Override
    public int key() {
        return index << 8 | keyByte;
    }

    @Override
    public int rkey() {
        return key();
    }

    @Override
    public RvtPd pd() {
        return pd;
    }

    public RvtMr mr() {
        return mr;
    }

    /** Remote access through this window by {@code qp}: state, owner, access and range. */
    MemError check(RvtQp qp, long a, long len, int need) {
        if (state != State.VALID || mr == null) {
            return MemError.BAD_KEY;
        }
        if (type == MwType.TYPE_2 ? this.qp != qp : pd != qp.pd) {
            return MemError.BAD_PD;
        }
        if ((access & need) != need) {
            return MemError.NO_ACCESS;
        }
        long off = a - addr;
        if (off < 0 || len < 0 || off > length || len > length - off) {
            return MemError.OUT_OF_BOUNDS;
        }
        return mr.state == State.VALID ? MemError.NONE : MemError.BAD_KEY;
    }

    /**
     * {@code rxe_bind_mw}: checks as the spec and rxe do, then binds. A zero-length bind of a type 1
     * window unbinds it.
     */
    synchronized MemError bind(RvtQp by, RvtMr target, long a, long len, int acc, int newKeyByte) {
        if (type == MwType.TYPE_2) {
            if (state != State.FREE) {
                return MemError.BAD_KEY; // a bound type 2 window must be invalidated first
            }
            if (pd != by.pd) {
                return MemError.BAD_PD;
            }
        } else if (pd != by.pd) {
            return MemError.BAD_PD;
        }
        if ((acc & ~(Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC | Access.ZERO_BASED)) != 0) {
            return MemError.NO_ACCESS;
        }
        if (len == 0 && type == MwType.TYPE_1) {
            unbind();
            keyByte = newKeyByte & 0xff;
            return MemError.NONE;
        }
        if (target == null || target.state != State.VALID) {
            return MemError.BAD_KEY;
        }
        if (target.pd != by.pd) {
            return MemError.BAD_PD;
        }
        if ((target.access & Access.MW_BIND) == 0) {
            return MemError.NO_ACCESS;
        }
        if ((acc & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (target.access & Access.LOCAL_WRITE) == 0) {
            return MemError.NO_ACCESS;
        }
        if (!target.inRange(a, len)) {
            return MemError.OUT_OF_BOUNDS;
        }
        unbind();
        target.boundWindows.incrementAndGet();
        this.mr = target;
        this.addr = a;
        this.length = len;
        this.access = acc;
        this.keyByte = newKeyByte & 0xff;
        this.qp = type == MwType.TYPE_2 ? by : null;
        state = State.VALID;
        return MemError.NONE;
    }

    private void unbind() {
        RvtMr old = mr;
        if (old != null) {
            old.boundWindows.decrementAndGet();
        }
        mr = null;
        length = 0;
        qp = null;
    }

    /** LOCAL_INV / SEND_WITH_INV of a type 2 window; type 1 windows cannot be invalidated. */
    synchronized MemError invalidate(int key, RvtQp by) {
        if (type == MwType.TYPE_1 || key != key() || state != State.VALID) {
            return MemError.BAD_KEY;
        }
        if (pd != by.pd) {
            return MemError.BAD_PD;
        }
        unbind();
        state = State.FREE;
        return MemError.NONE;
    }

    synchronized void dealloc() {
        unbind();
        state = State.INVALID;
    }
}
