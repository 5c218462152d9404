package org.jrdma.ulp.iser.login;

/**
 * How a key's value is settled (RFC 7143 section 6.2): declared by its sender, or negotiated by one of the
 * result functions. CHAP keys belong to the CHAP exchange, not to negotiation.
 */
enum KeyRule {
    /** The sender declares its value; no answer (InitiatorName, MaxRecvDataSegmentLength...). */
    DECLARATIVE,
    /** The acceptor picks the first value of the offered list it supports (AuthMethod, HeaderDigest). */
    LIST,
    /** Boolean, result Yes only when both say Yes (ImmediateData, RDMAExtensions). */
    AND,
    /** Boolean, result Yes when either says Yes (InitialR2T, DataPDUInOrder, DataSequenceInOrder). */
    OR,
    /** Numerical, the smaller value wins (MaxBurstLength, DefaultTime2Retain, ErrorRecoveryLevel...). */
    MIN,
    /** Numerical, the larger value wins (DefaultTime2Wait). */
    MAX,
    /** Numerical minimum where 0 means "no limit" (RFC 7145 MaxOutstandingUnexpectedPDUs). */
    MIN_ZERO_UNLIMITED,
    /** A CHAP key (RFC 7143 section 12.1.3): carried by the CHAP exchange. */
    CHAP
}
