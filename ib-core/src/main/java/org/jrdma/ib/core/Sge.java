package org.jrdma.ib.core;

/** {@code struct ib_sge}: one scatter/gather element, an I/O virtual address range under an lkey. */
public final class Sge {
    private long addr;
    private int length;
    private int lkey;

    public Sge() {
    }

    public Sge(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
    }

    public long addr() { return addr; }
    public Sge addr(long v) { addr = v; return this; }
    /** Bytes, unsigned: lengths up to 2 GiB - 1 are supported. */
    public int length() { return length; }
    public Sge length(int v) { length = v; return this; }
    public int lkey() { return lkey; }
    public Sge lkey(int v) { lkey = v; return this; }

    @Override
    public String toString() {
        return String.format("Sge{addr=0x%x, length=%d, lkey=0x%x}", addr, length, lkey);
    }

    /** A work request's {@code sg_list} as given (null: empty); EINVAL naming the first null entry. */
    static Sge[] checkedList(Sge[] v) {
        Sge[] list = v == null ? new Sge[0] : v;
        for (int i = 0; i < list.length; i++) {
            if (list[i] == null) {
                throw new VerbsException(Errno.EINVAL, "sg_list[" + i + "] is null");
            }
        }
        return list;
    }
}
