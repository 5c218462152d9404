package org.jrdma.ulp.iser.pdu;

/**
 * The sequence numbers initiator commands carry at bytes 24..31 (RFC 7143 section 4.2.2.1): CmdSN (the command's
 * number; immediate commands carry the next one without advancing it) and ExpStatSN (status received so far).
 */
public record InitiatorSn(int cmdSn, int expStatSn) {

    static InitiatorSn decode(Bhs b) {
        return new InitiatorSn(b.u32(Bhs.W24), b.u32(Bhs.W28));
    }

    void encode(Bhs b) {
        b.u32(Bhs.W24, cmdSn);
        b.u32(Bhs.W28, expStatSn);
    }
}
