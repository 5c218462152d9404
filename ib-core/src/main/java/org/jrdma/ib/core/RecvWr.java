package org.jrdma.ib.core;

/** {@code struct ib_recv_wr}: a receive buffer; chain with {@link #next(RecvWr)}. Reusable after post. */
public final class RecvWr {
    private long wrId;
    private RecvWr next;
    private Sge[] sgList = new Sge[0];

    public long wrId() { return wrId; }
    public RecvWr wrId(long v) { wrId = v; return this; }
    public RecvWr next() { return next; }
    public RecvWr next(RecvWr v) { next = v; return this; }
    public Sge[] sgList() { return sgList; }
    public RecvWr sgList(Sge... v) {
        sgList = Sge.checkedList(v);
        return this;
    }
    public int numSge() { return sgList.length; }

    public long totalLength() {
        long n = 0;
        for (Sge s : sgList) {
            n += s.length() & 0xffffffffL;
        }
        return n;
    }

    @Override
    public String toString() {
        return "RecvWr{wrId=" + wrId + ", sge=" + sgList.length + "}";
    }
}
