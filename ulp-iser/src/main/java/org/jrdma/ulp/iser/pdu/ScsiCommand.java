package org.jrdma.ulp.iser.pdu;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * SCSI Command (RFC 7143 section 11.3): F, R (data in), W (data out), ATTR, LUN, ITT, Expected Data Transfer
 * Length, CmdSN and ExpStatSN and a 16-byte CDB (longer CDBs continue in an Extended CDB AHS). Immediate data, if
 * any, is the data segment.
 */
public record ScsiCommand(boolean immediate, boolean fin, boolean read, boolean write, TaskAttribute attr, long lun,
        int itt, int edtl, InitiatorSn sn, byte[] cdb) implements IscsiHeader {
    static final int READ = 0x40;
    static final int WRITE = 0x20;
    static final int ATTR_MASK = 0x07;
    static final int CDB = 32;
    /** The CDB bytes the BHS holds. */
    public static final int CDB_LENGTH = 16;

    public ScsiCommand {
        if (cdb.length != CDB_LENGTH) {
            throw new IllegalArgumentException("CDB field of " + cdb.length + " bytes, not " + CDB_LENGTH);
        }
        cdb = cdb.clone();
    }

    @Override
    public byte[] cdb() {
        return cdb.clone();
    }

    /** Records compare arrays by identity: compare the CDB's bytes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ScsiCommand c && immediate == c.immediate && fin == c.fin && read == c.read
                && write == c.write && attr == c.attr && lun == c.lun && itt == c.itt && edtl == c.edtl
                && sn.equals(c.sn) && Arrays.equals(cdb, c.cdb);
    }

    @Override
    public int hashCode() {
        return Objects.hash(itt, sn, Arrays.hashCode(cdb));
    }

    @Override
    public String toString() {
        return "ScsiCommand[itt=0x" + Integer.toHexString(itt) + " cmdSn=" + Integer.toUnsignedString(sn.cmdSn())
                + (read ? " R" : "") + (write ? " W" : "") + " edtl=" + Integer.toUnsignedString(edtl) + " cdb="
                + HexFormat.of().formatHex(cdb) + "]";
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SCSI_CMD;
    }

    /** The SCSI operation code, CDB byte 0. */
    public int scsiOpcode() {
        return cdb[0] & 0xff;
    }

    static ScsiCommand decode(Bhs b) throws IscsiProtocolException {
        int f = b.flags();
        return new ScsiCommand(b.immediate(), b.isFinal(), (f & READ) != 0, (f & WRITE) != 0,
                TaskAttribute.of(f & ATTR_MASK), b.u64(8), b.itt(), b.u32(Bhs.W20), InitiatorSn.decode(b),
                b.bytes(CDB, CDB_LENGTH));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), immediate);
        b.flags((fin ? Bhs.FINAL : 0) | (read ? READ : 0) | (write ? WRITE : 0) | attr.value());
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, edtl);
        sn.encode(b);
        b.bytes(CDB, cdb);
    }
}
