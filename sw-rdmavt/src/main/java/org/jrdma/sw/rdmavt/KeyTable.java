package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;

/**
 * Index space of memory keys, shared by MRs and MWs: a key is {@code index << 8 | key byte}, as
 * rxe's {@code mr->lkey = mr->ibmr.rkey = (index << 8) | key}. Lookups are lock-free reads of an
 * array; allocation and free take the table's lock.
 */
public final class KeyTable {
    private final RvtMem[] slots;
    private int next = 1;
    private int count;

    public KeyTable(int capacity) {
        this.slots = new RvtMem[capacity + 1];
    }

    /** Allocates an index for {@code mem}. */
    synchronized int allocate(RvtMem mem) {
        if (count >= slots.length - 1) {
            throw new VerbsException(Errno.ENOMEM, "no free memory key index (" + (slots.length - 1) + " in use)");
        }
        while (slots[next] != null) {
            next = next + 1 == slots.length ? 1 : next + 1;
        }
        int index = next;
        slots[index] = mem;
        count++;
        next = next + 1 == slots.length ? 1 : next + 1;
        return index;
    }

    synchronized void replace(int index, RvtMem mem) {
        slots[index] = mem;
    }

    synchronized void free(int index) {
        if (slots[index] != null) {
            slots[index] = null;
            count--;
        }
    }

    /** Visits every MR and MW (a snapshot). */
    public void forEach(java.util.function.Consumer<RvtMem> visitor) {
        RvtMem[] copy;
        synchronized (this) {
            copy = slots.clone();
        }
        for (RvtMem m : copy) {
            if (m != null) {
                visitor.accept(m);
            }
        }
    }

    /** The MR or MW whose current key is exactly {@code key}, or null. */
    public RvtMem lookup(int key) {
        int index = key >>> 8;
        if (index <= 0 || index >= slots.length) {
            return null;
        }
        RvtMem m = slots[index];
        return m != null && m.key() == key ? m : null;
    }

    /** The MR or MW at the key's index, whatever its key byte (for invalidation). */
    public RvtMem byIndex(int key) {
        int index = key >>> 8;
        return index <= 0 || index >= slots.length ? null : slots[index];
    }
}
