package org.jrdma.ulp.iser.pdu;

/**
 * Byte 1 of a Login Request and Response (RFC 7143 sections 11.12.1 to 11.12.4): T (transit to NSG, 0x80),
 * C (the keys continue in the next PDU, 0x40), CSG in bits 3..2, NSG in bits 1..0 (meaningful only with T).
 */
public record LoginStages(boolean transit, boolean cont, LoginStage csg, LoginStage nsg) {
    static final int TRANSIT = 0x80;
    static final int CONTINUE = 0x40;

    static LoginStages decode(Bhs b) throws IscsiProtocolException {
        int f = b.flags();
        return new LoginStages((f & TRANSIT) != 0, (f & CONTINUE) != 0, LoginStage.of(f >> 2 & 3),
                LoginStage.of(f & 3));
    }

    void encode(Bhs b) {
        b.flags((transit ? TRANSIT : 0) | (cont ? CONTINUE : 0) | csg.value() << 2 | nsg.value());
    }
}
