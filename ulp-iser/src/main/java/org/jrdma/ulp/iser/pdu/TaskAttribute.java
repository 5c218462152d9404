package org.jrdma.ulp.iser.pdu;

/** The SCSI Command's ATTR field (RFC 7143 section 11.3.1, Linux {@code ISCSI_ATTR_*}). */
public enum TaskAttribute {
    UNTAGGED, SIMPLE, ORDERED, HEAD_OF_QUEUE, ACA;

    /** The 3-bit value on the wire. */
    public int value() {
        return ordinal();
    }

    static TaskAttribute of(int value) throws IscsiProtocolException {
        if (value >= values().length) {
            throw IscsiProtocolException.field("reserved task attribute " + value);
        }
        return values()[value];
    }
}
