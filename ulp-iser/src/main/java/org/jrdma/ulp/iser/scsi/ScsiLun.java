package org.jrdma.ulp.iser.scsi;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * A backstore exported as a logical unit ({@code struct se_lun} + {@code se_device}'s t10_wwn): read-only or
 * not, with the identity VPD pages report - a unit serial derived stably from the backstore name (a name-based
 * UUID as targetcli's random one would be, without the randomness) and the NAA 6 designator built from it -
 * and its statistics (LIO's scsi_lu num_cmds, read/write bytes in configfs). Keep one ScsiLun per exported
 * LUN across {@link LunTable} snapshots so the counters accumulate.
 */
public final class ScsiLun {
    /** LIO's IEEE company id (OpenFabrics, 00-14-05) used in its NAA designators. */
    static final int COMPANY_ID = 0x001405;

    private final Backstore backstore;
    private final boolean readOnly;
    private final String unitSerial;
    private final LongAdder commands = new LongAdder();
    private final LongAdder readBytes = new LongAdder();
    private final LongAdder writeBytes = new LongAdder();

    public ScsiLun(Backstore backstore, boolean readOnly) {
        if (backstore == null || backstore.blockSize() <= 0 || backstore.size() < backstore.blockSize()) {
            throw new IllegalArgumentException("a LUN needs a backstore with at least one block");
        }
        this.backstore = backstore;
        this.readOnly = readOnly;
        this.unitSerial = UUID.nameUUIDFromBytes((backstore.plugin() + "/" + backstore.name())
                .getBytes(StandardCharsets.UTF_8)).toString();
    }

    public Backstore backstore() {
        return backstore;
    }

    public boolean readOnly() {
        return readOnly;
    }

    /** VPD 0x80's PRODUCT SERIAL NUMBER: a UUID string, stable for one backstore plugin and name. */
    public String unitSerial() {
        return unitSerial;
    }

    /** Commands addressed to this LUN, whatever their outcome. */
    public long commands() {
        return commands.sum();
    }

    /** Bytes read from the backstore by READ commands. */
    public long readBytes() {
        return readBytes.sum();
    }

    /** Bytes written to the backstore by WRITE and WRITE SAME commands. */
    public long writeBytes() {
        return writeBytes.sum();
    }

    void countCommand() {
        commands.increment();
    }

    void countRead(long bytes) {
        readBytes.add(bytes);
    }

    void countWrite(long bytes) {
        writeBytes.add(bytes);
    }

    public int blockSize() {
        return backstore.blockSize();
    }

    /** Number of logical blocks (READ CAPACITY answers this minus one). */
    public long blocks() {
        return backstore.size() / backstore.blockSize();
    }

    /**
     * The NAA IEEE Registered Extended designator (16 bytes, NAA 6h): company id, then the unit serial's hex
     * digits as vendor specific identifier and extension - as LIO's spc_gen_naa_6h_vendor_specific.
     */
    public byte[] naaDesignator() {
        byte[] d = new byte[16];
        d[0] = (byte) (0x60 | ((COMPANY_ID >>> 20) & 0x0f));
        d[1] = (byte) (COMPANY_ID >>> 12);
        d[2] = (byte) (COMPANY_ID >>> 4);
        d[3] = (byte) ((COMPANY_ID & 0x0f) << 4);
        int nibble = 7; // byte 3 low nibble onward
        for (char c : unitSerial.toCharArray()) {
            int v = Character.digit(c, 16);
            if (v < 0) {
                continue;
            }
            if (nibble >= 32) {
                break;
            }
            d[nibble / 2] |= (byte) ((nibble & 1) == 1 ? v : v << 4);
            nibble++;
        }
        return d;
    }
}
