package org.jrdma.ulp.iser.scsi;

/**
 * A command ends with CHECK CONDITION: thrown inside the core by the command handlers (LIO returns a
 * {@code sense_reason_t}), turned into a {@link ScsiResult} by {@link LunTable}; it never leaves the package.
 */
final class CheckCondition extends Exception {
    private static final long serialVersionUID = 1L;

    private final Sense sense;
    private final boolean inCdb;
    private final int fieldByte;
    private final int bit;

    /** Without a field pointer. */
    CheckCondition(Sense sense) {
        this(sense, false, -1, -1);
    }

    private CheckCondition(Sense sense, boolean inCdb, int fieldByte, int bit) {
        super(sense.name(), null, false, false);
        this.sense = sense;
        this.inCdb = inCdb;
        this.fieldByte = fieldByte;
        this.bit = bit;
    }

    /** INVALID FIELD IN CDB pointing at byte {@code fieldByte} (bit -1: the whole byte). */
    static CheckCondition cdbField(int fieldByte, int bit) {
        return new CheckCondition(Sense.INVALID_FIELD_IN_CDB, true, fieldByte, bit);
    }

    /** INVALID FIELD IN PARAMETER LIST pointing at byte {@code fieldByte} of the data-out. */
    static CheckCondition parameterField(int fieldByte) {
        return new CheckCondition(Sense.INVALID_FIELD_IN_PARAMETER_LIST, false, fieldByte, -1);
    }

    Sense sense() {
        return sense;
    }

    byte[] senseData() {
        return fieldByte < 0 ? sense.fixed() : sense.fixed(inCdb, fieldByte, bit);
    }

    ScsiResult result() {
        return new ScsiResult(ScsiResult.CHECK_CONDITION, senseData(), 0);
    }
}
