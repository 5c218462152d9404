package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The LUNs one initiator sees through one TPG, as an immutable snapshot (rebuild it when the configuration
 * changes), and the command execution path of the core (LIO: transport_lookup_cmd_lun, target_cmd_size_check,
 * the parse and execute of target_core_sbc/spc): LUN lookup, opcode table, read-only check, handler, and every
 * error turned into CHECK CONDITION with fixed-format sense data.
 *
 * <p>LUN numbers are the SAM single-level numbers: 0-255 peripheral addressing, 256-16383 flat space.
 */
public final class LunTable implements ScsiExecutor {
    /** The largest LUN number single-level flat space addressing can carry. */
    public static final int MAX_LUN = 0x3fff;

    private static final System.Logger LOG = System.getLogger("org.jrdma.ulp.iser.scsi");
    private static final Set<ScsiOpcode> WITHOUT_LUN =
            EnumSet.of(ScsiOpcode.INQUIRY, ScsiOpcode.REPORT_LUNS, ScsiOpcode.REQUEST_SENSE);

    private final SortedMap<Integer, ScsiLun> luns;
    private final TargetPort port;

    public LunTable(SortedMap<Integer, ScsiLun> luns) {
        this(luns, null);
    }

    /** @param port the target port for VPD 0x83's port designators, null to leave them out */
    public LunTable(SortedMap<Integer, ScsiLun> luns, TargetPort port) {
        TreeMap<Integer, ScsiLun> copy = new TreeMap<>(luns);
        for (var e : copy.entrySet()) {
            if (e.getKey() == null || e.getKey() < 0 || e.getKey() > MAX_LUN || e.getValue() == null) {
                throw new IllegalArgumentException("bad LUN " + e.getKey() + " -> " + e.getValue());
            }
        }
        this.luns = Collections.unmodifiableSortedMap(copy);
        this.port = port;
    }

    public SortedMap<Integer, ScsiLun> luns() {
        return luns;
    }

    /** The target port VPD 0x83 reports, or null. */
    public TargetPort port() {
        return port;
    }

    /** SAM-5 single-level LUN: peripheral device addressing below 256, flat space addressing above. */
    public static long encodeLun(int lun) {
        if (lun < 0 || lun > MAX_LUN) {
            throw new IllegalArgumentException("LUN " + lun + " outside single-level addressing");
        }
        long first = lun < 256 ? lun : 0x4000 | lun;
        return first << 48;
    }

    /** The LUN number of an 8-byte LUN field, or -1 when it is not a single-level LUN we can address. */
    public static int decodeLun(long lun) {
        if ((lun & 0x0000_ffff_ffff_ffffL) != 0) {
            return -1;
        }
        int first = (int) (lun >>> 48);
        return switch (first >>> 14) {
            case 0 -> first <= 0xff ? first : -1; // peripheral: bus identifier must be 0
            case 1 -> first & 0x3fff;
            default -> -1;
        };
    }

    /** A LUN that does not exist answers from memory; one that does, as its backstore says. */
    @Override
    public boolean mayBlock(long lun) {
        int number = decodeLun(lun);
        ScsiLun l = number < 0 ? null : luns.get(number);
        return l != null && l.backstore().mayBlock();
    }

    @Override
    public ScsiResult execute(ScsiTask task) {
        byte[] bytes = task.cdb();
        if (bytes == null || bytes.length == 0) {
            return new CheckCondition(Sense.INVALID_COMMAND_OPERATION_CODE).result();
        }
        Cdb cdb = new Cdb(bytes);
        int number = decodeLun(task.lun());
        ScsiLun lun = number < 0 ? null : luns.get(number);
        ScsiOpcode op = null;
        if (lun != null) {
            lun.countCommand();
        }
        try {
            op = lookup(cdb, lun);
            if (lun != null && lun.readOnly() && op.writesMedium) {
                throw new CheckCondition(Sense.WRITE_PROTECTED);
            }
            return ScsiResult.good(op.handler.execute(new Command(task, cdb, lun, this)));
        } catch (CheckCondition c) {
            return c.result();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, () -> name(lun) + ": " + op(cdb) + " failed: " + e);
            return new CheckCondition(op.mediumError()).result();
        } catch (RuntimeException e) {
            // a bug in a handler must not take the session down: the command fails, the LUN stays
            LOG.log(System.Logger.Level.ERROR, name(lun) + ": " + op(cdb) + " failed", e);
            return new CheckCondition(Sense.INTERNAL_TARGET_FAILURE).result();
        }
    }

    private static String name(ScsiLun lun) {
        return lun == null ? "no LUN" : lun.backstore().plugin() + "/" + lun.backstore().name();
    }

    private static String op(Cdb cdb) {
        return String.format("opcode 0x%02x", cdb.opcode());
    }

    /**
     * The command, once the LUN exists: a LUN that does not exist answers only INQUIRY, REPORT LUNS and REQUEST
     * SENSE (LIO's virtual LUN 0), everything else - unknown opcodes too - LOGICAL UNIT NOT SUPPORTED.
     */
    private static ScsiOpcode lookup(Cdb cdb, ScsiLun lun) throws CheckCondition {
        try {
            ScsiOpcode op = ScsiOpcode.of(cdb);
            if (lun == null && !WITHOUT_LUN.contains(op)) {
                throw new CheckCondition(Sense.LOGICAL_UNIT_NOT_SUPPORTED);
            }
            return op;
        } catch (CheckCondition c) {
            throw lun == null ? new CheckCondition(Sense.LOGICAL_UNIT_NOT_SUPPORTED) : c;
        }
    }
}
