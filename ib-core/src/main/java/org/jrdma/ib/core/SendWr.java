package org.jrdma.ib.core;

/**
 * {@code struct ib_send_wr} with its RDMA, atomic, UD, REG_MR and BIND_MW parts flattened into one
 * reusable object. Chain requests with {@link #next(SendWr)} and post them in one call; on failure
 * {@link PostException#badSendWr()} names the first one not posted. A SendWr may be reused as soon
 * as {@code postSend} returns: the driver copies what it needs.
 */
public final class SendWr {
    private long wrId;
    private SendWr next;
    private Sge[] sgList = new Sge[0];
    private WrOpcode opcode = WrOpcode.SEND;
    private int sendFlags;
    private int immData;
    private int invalidateRkey;
    // RDMA and atomic
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    // UD
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private int pkeyIndex;
    // REG_MR
    private MemoryRegion mr;
    private int key;
    private int access;
    // BIND_MW
    private MemoryWindow mw;
    private long bindAddr;
    private long bindLength;

    public long wrId() { return wrId; }
    public SendWr wrId(long v) { wrId = v; return this; }
    public SendWr next() { return next; }
    public SendWr next(SendWr v) { next = v; return this; }
    public Sge[] sgList() { return sgList; }
    public SendWr sgList(Sge... v) {
        sgList = Sge.checkedList(v);
        return this;
    }
    public int numSge() { return sgList.length; }
    public WrOpcode opcode() { return opcode; }
    public SendWr opcode(WrOpcode v) { opcode = v; return this; }
    public int sendFlags() { return sendFlags; }
    public SendWr sendFlags(int v) { sendFlags = v; return this; }
    /** Immediate data, in host order (the wire carries it big-endian). */
    public int immData() { return immData; }
    public SendWr immData(int v) { immData = v; return this; }
    /** The rkey a SEND_WITH_INV invalidates at the responder, or the key LOCAL_INV invalidates. */
    public int invalidateRkey() { return invalidateRkey; }
    public SendWr invalidateRkey(int v) { invalidateRkey = v; return this; }
    public long remoteAddr() { return remoteAddr; }
    public SendWr remoteAddr(long v) { remoteAddr = v; return this; }
    public int rkey() { return rkey; }
    public SendWr rkey(int v) { rkey = v; return this; }
    /** RDMA/atomic target in one call. */
    public SendWr remote(long addr, int rkey) { this.remoteAddr = addr; this.rkey = rkey; return this; }
    /** ATOMIC_CMP_AND_SWP: the compare value; ATOMIC_FETCH_AND_ADD: the addend. */
    public long compareAdd() { return compareAdd; }
    public SendWr compareAdd(long v) { compareAdd = v; return this; }
    public long swap() { return swap; }
    public SendWr swap(long v) { swap = v; return this; }
    public AddressHandle ah() { return ah; }
    public SendWr ah(AddressHandle v) { ah = v; return this; }
    public int remoteQpn() { return remoteQpn; }
    public SendWr remoteQpn(int v) { remoteQpn = v; return this; }
    public int remoteQkey() { return remoteQkey; }
    public SendWr remoteQkey(int v) { remoteQkey = v; return this; }
    /** UD destination in one call. */
    public SendWr ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah; this.remoteQpn = remoteQpn; this.remoteQkey = remoteQkey; return this;
    }
    /** P_Key index of a GSI send. */
    public int pkeyIndex() { return pkeyIndex; }
    public SendWr pkeyIndex(int v) { pkeyIndex = v; return this; }
    /** REG_MR: the fast-registration MR whose mapping becomes valid. */
    public MemoryRegion mr() { return mr; }
    public SendWr mr(MemoryRegion v) { mr = v; return this; }
    /** REG_MR: the new key (low 8 bits) of the MR; BIND_MW: the new rkey of the window. */
    public int key() { return key; }
    public SendWr key(int v) { key = v; return this; }
    /** REG_MR / BIND_MW access flags. */
    public int access() { return access; }
    public SendWr access(int v) { access = v; return this; }
    public MemoryWindow mw() { return mw; }
    public SendWr mw(MemoryWindow v) { mw = v; return this; }
    public long bindAddr() { return bindAddr; }
    public SendWr bindAddr(long v) { bindAddr = v; return this; }
    public long bindLength() { return bindLength; }
    public SendWr bindLength(long v) { bindLength = v; return this; }

    /** Total bytes of the scatter/gather list. */
    public long totalLength() {
        long n = 0;
        for (Sge s : sgList) {
            n += s.length() & 0xffffffffL;
        }
        return n;
    }

    @Override
    public String toString() {
        return "SendWr{wrId=" + wrId + ", " + opcode + ", sge=" + sgList.length + ", flags=" + sendFlags + "}";
    }
}
