package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/**
 * A CM message that is the two comm IDs and 224 bytes of private data at 8: RTU (IBTA table 111) and DREP
 * (table 113) have this one layout and differ only in their attribute ID.
 *
 * @param <T> the message class, which the setters return
 */
public abstract class CmCommIdMessage<T extends CmCommIdMessage<T>> {
    /** {@code IB_CM_RTU_PRIVATE_DATA_SIZE}, {@code IB_CM_DREP_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 224;
    static final int PRIVATE_DATA = 8;

    private final int attrId;
    private int localCommId;
    private int remoteCommId;
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    CmCommIdMessage(int attrId) {
        this.attrId = attrId;
    }

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    public int localCommId() { return localCommId; }
    public T localCommId(int v) { localCommId = v; return self(); }
    public int remoteCommId() { return remoteCommId; }
    public T remoteCommId(int v) { remoteCommId = v; return self(); }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 224 bytes; IllegalArgumentException if longer. */
    public T privateData(byte[] v) {
        privateData = Wire.fixed(CmAttr.name(attrId) + " private data", v, PRIVATE_DATA_SIZE);
        return self();
    }

    /** Fills this message from {@code m}, which must be of this message's attribute. */
    T decodeFrom(Mad m) {
        CmAttr.expect(m, attrId);
        localCommId = CmField.LOCAL_COMM_ID.get(m);
        remoteCommId = CmField.REMOTE_COMM_ID.get(m);
        privateData = Wire.read(m, CmField.at(PRIVATE_DATA), PRIVATE_DATA_SIZE);
        return self();
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(attrId, tid);
        CmField.LOCAL_COMM_ID.set(m, localCommId);
        CmField.REMOTE_COMM_ID.set(m, remoteCommId);
        Wire.write(m, CmField.at(PRIVATE_DATA), privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("%s local_comm_id 0x%08x remote_comm_id 0x%08x", CmAttr.name(attrId), localCommId,
                remoteCommId);
    }
}
