package org.jrdma.ulp.iser.pdu;

/**
 * The sequence numbers every target PDU carries at bytes 24..35 (RFC 7143 section 4.2.2.2 and 11): StatSN (the
 * status this PDU acknowledges or 0 when it has none), and the command window ExpCmdSN..MaxCmdSN.
 */
public record TargetSn(int statSn, int expCmdSn, int maxCmdSn) {

    static TargetSn decode(Bhs b) {
        return new TargetSn(b.u32(Bhs.W24), b.u32(Bhs.W28), b.u32(Bhs.W32));
    }

    void encode(Bhs b) {
        b.u32(Bhs.W24, statSn);
        b.u32(Bhs.W28, expCmdSn);
        b.u32(Bhs.W32, maxCmdSn);
    }
}
