package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.WrOpcode;

/**
 * A posted send, copied out of the caller's {@link SendWr} into a preallocated slot (so the caller
 * may reuse its WR at once); inline data is copied at post time.
 * <p>The slots of every QP are kept for the QP's life, so a slot is kept small (96 bytes with one SGE
 * and no inline data). The parts of a WR that only some opcodes use share fields, as in rxe's {@code
 * struct rxe_send_wr}:
 * <pre>
 *   field         RDMA         atomics       UD              REG_MR   BIND_MW
 *   remoteAddr    remote addr  remote addr   P_Key index     -        window start
 *   compareAdd    -            compare/add   -               -        window length
 *   swap          -            swap          -               -        -
 *   rkey          rkey         rkey          remote QPN      new key  new key
 *   qkeyOrAccess  -            -             remote Q_Key    access   access
 * </pre>
 * Each accessor says which WQEs it is valid for; on others it returns what another part stored.
 * <p>A packet engine that keeps per-WQE state (hw-rxe) subclasses this and gives its QPs a
 * {@link RvtQp.SlotFactory}.
 */
public class SendWqe extends Wqe {
    private static final byte[] NO_INLINE = new byte[0];
    private static final WrOpcode[] OPCODES = WrOpcode.values();

    /** The ordinal of the {@link WrOpcode}. */
    private byte opcode;
    byte sendFlags;
    /** The data was copied into {@link #inline} at post time. */
    boolean inlined;
    /** Immediate data (the WITH_IMM opcodes) or the key to invalidate (SEND_WITH_INV, LOCAL_INV): rxe's {@code ex}. */
    int ex;
    long remoteAddr;
    long compareAdd;
    long swap;
    int rkey;
    int qkeyOrAccess;
    RvtAh ah;
    RvtMr mr;
    RvtMw mw;
    final byte[] inline;

    protected SendWqe(int maxSge, int maxInline) {
        super(maxSge);
        inline = maxInline > 0 ? new byte[maxInline] : NO_INLINE;
    }

    /** Copies {@code wr}; {@code datagram}: the QP is UD or GSI/SMI (the WR's UD part counts). */
    final void set(SendWr wr, boolean datagram, RvtAh ah, RvtMr mr, RvtMw mw) {
        wrId = wr.wrId();
        WrOpcode op = wr.opcode();
        opcode = (byte) op.ordinal();
        sendFlags = (byte) wr.sendFlags();
        ex = op == WrOpcode.SEND_WITH_INV || op == WrOpcode.LOCAL_INV ? wr.invalidateRkey() : wr.immData();
        this.ah = ah;
        this.mr = mr;
        this.mw = mw;
        if (op == WrOpcode.REG_MR || op == WrOpcode.BIND_MW) {
            rkey = wr.key();
            qkeyOrAccess = wr.access();
            remoteAddr = wr.bindAddr();
            compareAdd = wr.bindLength();
        } else if (datagram) {
            rkey = wr.remoteQpn();
            qkeyOrAccess = wr.remoteQkey();
            remoteAddr = wr.pkeyIndex() & 0xffff; // 16 bits, as in ib_ud_wr
        } else {
            remoteAddr = wr.remoteAddr();
            rkey = wr.rkey();
            compareAdd = wr.compareAdd();
            swap = wr.swap();
        }
        setSges(wr.sgList());
        inlined = false;
        clearEngineState();
    }

    /**
     * Called when the slot takes a new WR (under the QP's lock, before an engine can see it): a
     * subclass resets its per-WQE state here.
     */
    protected void clearEngineState() {
    }

    public WrOpcode opcode() {
        return OPCODES[opcode];
    }

    /** UD: the address vector of the WR's address handle. */
    public org.jrdma.ib.core.AhAttr ahAttr() {
        return ah == null ? null : ah.attr;
    }

    /** UD only. */
    public int remoteQpn() {
        return rkey;
    }

    /** UD only; negative: use the QP's own Q_Key. */
    public int remoteQkey() {
        return qkeyOrAccess;
    }

    public boolean signaled() {
        return (sendFlags & SendFlags.SIGNALED) != 0;
    }

    public boolean isInline() {
        return inlined;
    }

    // ---- read-only accessors for packet engines outside this package (hw-rxe)

    public int sendFlags() {
        return sendFlags;
    }

    /** The WITH_IMM opcodes only. */
    public int immData() {
        return ex;
    }

    /** SEND_WITH_INV and LOCAL_INV only. */
    public int invalidateRkey() {
        return ex;
    }

    /** RDMA and atomics only. */
    public long remoteAddr() {
        return remoteAddr;
    }

    /** RDMA and atomics only. */
    public int rkey() {
        return rkey;
    }

    /** Atomics only. */
    public long compareAdd() {
        return compareAdd;
    }

    /** CMP_AND_SWP only. */
    public long swap() {
        return swap;
    }

    /** UD (GSI) only. */
    public int pkeyIndex() {
        return (int) remoteAddr;
    }

    /** REG_MR and BIND_MW only. */
    public int key() {
        return rkey;
    }

    /** REG_MR and BIND_MW only. */
    public int access() {
        return qkeyOrAccess;
    }

    /** BIND_MW only. */
    public long bindAddr() {
        return remoteAddr;
    }

    /** BIND_MW only. */
    public long bindLength() {
        return compareAdd;
    }

    /** Inline bytes copied at post time (first {@link #inlineLength()} are valid); do not modify. */
    public byte[] inlineData() {
        return inline;
    }

    /** The number of inline bytes (all of the message), or -1 if the WQE is not inline. */
    public int inlineLength() {
        return inlined ? (int) totalLength() : -1;
    }
}
