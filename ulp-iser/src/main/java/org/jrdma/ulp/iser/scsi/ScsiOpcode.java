package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * The commands the core executes, as a table (LIO: the switch of sbc_parse_cdb/spc_parse_cdb plus the
 * {@code tcm_opcode_*} descriptors of REPORT SUPPORTED OPERATION CODES): opcode, service action, data
 * direction, whether it modifies the medium (refused on a read-only LUN), the sense its backstore I/O errors
 * become, the CDB usage data (SPC-4 6.35.3: which CDB bits the device server evaluates; its length is the CDB
 * length) and the handler.
 */
enum ScsiOpcode {
    TEST_UNIT_READY(0x00, -1, Data.NONE, false, "00 00 00 00 00 00", PrimaryCommands::testUnitReady),
    REQUEST_SENSE(0x03, -1, Data.IN, false, "03 01 00 00 ff 00", PrimaryCommands::requestSense),
    READ_6(0x08, -1, Data.IN, false, "08 1f ff ff ff 00", BlockCommands::read),
    WRITE_6(0x0a, -1, Data.OUT, true, "0a 1f ff ff ff 00", BlockCommands::write),
    INQUIRY(0x12, -1, Data.IN, false, "12 01 ff ff ff 00", Inquiry::execute),
    MODE_SELECT_6(0x15, -1, Data.OUT, false, "15 11 00 00 ff 00", ModeSelect::modeSelect6),
    MODE_SENSE_6(0x1a, -1, Data.IN, false, "1a 08 ff ff ff 00", ModeSense::modeSense6),
    START_STOP_UNIT(0x1b, -1, Data.NONE, false, "1b 01 00 00 f7 00", PrimaryCommands::startStopUnit),
    READ_CAPACITY_10(0x25, -1, Data.IN, false, "25 00 00 00 00 00 00 00 00 00", BlockCommands::readCapacity10),
    READ_10(0x28, -1, Data.IN, false, "28 18 ff ff ff ff 00 ff ff 00", BlockCommands::read),
    WRITE_10(0x2a, -1, Data.OUT, true, "2a 18 ff ff ff ff 00 ff ff 00", BlockCommands::write),
    VERIFY_10(0x2f, -1, Data.NONE, false, "2f 16 ff ff ff ff 00 ff ff 00", BlockCommands::verify),
    SYNCHRONIZE_CACHE_10(0x35, -1, Data.NONE, false, "35 02 ff ff ff ff 00 ff ff 00",
            BlockCommands::synchronizeCache),
    WRITE_SAME_10(0x41, -1, Data.OUT, true, "41 08 ff ff ff ff 00 ff ff 00", BlockCommands::writeSame),
    UNMAP(0x42, -1, Data.OUT, true, "42 00 00 00 00 00 00 ff ff 00", Unmap::execute),
    MODE_SELECT_10(0x55, -1, Data.OUT, false, "55 11 00 00 00 00 00 ff ff 00", ModeSelect::modeSelect10),
    MODE_SENSE_10(0x5a, -1, Data.IN, false, "5a 18 ff ff 00 00 00 ff ff 00", ModeSense::modeSense10),
    READ_16(0x88, -1, Data.IN, false, "88 18 ff ff ff ff ff ff ff ff ff ff ff ff 00 00", BlockCommands::read),
    WRITE_16(0x8a, -1, Data.OUT, true, "8a 18 ff ff ff ff ff ff ff ff ff ff ff ff 00 00", BlockCommands::write),
    VERIFY_16(0x8f, -1, Data.NONE, false, "8f 16 ff ff ff ff ff ff ff ff ff ff ff ff 00 00",
            BlockCommands::verify),
    SYNCHRONIZE_CACHE_16(0x91, -1, Data.NONE, false, "91 02 ff ff ff ff ff ff ff ff ff ff ff ff 00 00",
            BlockCommands::synchronizeCache),
    WRITE_SAME_16(0x93, -1, Data.OUT, true, "93 09 ff ff ff ff ff ff ff ff ff ff ff ff 00 00",
            BlockCommands::writeSame),
    READ_CAPACITY_16(0x9e, 0x10, Data.IN, false, "9e 10 00 00 00 00 00 00 00 00 ff ff ff ff 00 00",
            BlockCommands::readCapacity16),
    REPORT_LUNS(0xa0, -1, Data.IN, false, "a0 00 ff 00 00 00 ff ff ff ff 00 00", PrimaryCommands::reportLuns),
    REPORT_SUPPORTED_OPERATION_CODES(0xa3, 0x0c, Data.IN, false, "a3 0c 87 ff ff ff ff ff ff ff 00 00",
            SupportedOpcodes::execute),
    READ_12(0xa8, -1, Data.IN, false, "a8 18 ff ff ff ff ff ff ff ff 00 00", BlockCommands::read),
    WRITE_12(0xaa, -1, Data.OUT, true, "aa 18 ff ff ff ff ff ff ff ff 00 00", BlockCommands::write);

    /** Direction of the command's data (SAM: data-in is target to initiator). */
    enum Data { NONE, IN, OUT }

    /** A command's execution: returns the data-in length it produced (0 for none). */
    @FunctionalInterface
    interface Handler {
        int execute(Command command) throws CheckCondition, IOException;
    }

    private static final Map<Integer, ScsiOpcode> BY_CODE = new HashMap<>();
    /** Opcodes that have service actions: an unknown service action is INVALID FIELD IN CDB, byte 1. */
    private static final java.util.Set<Integer> WITH_SERVICE_ACTION = new java.util.HashSet<>();

    static {
        for (ScsiOpcode op : values()) {
            BY_CODE.put(key(op.opcode, op.serviceAction), op);
            if (op.serviceAction >= 0) {
                WITH_SERVICE_ACTION.add(op.opcode);
            }
        }
    }

    final int opcode;
    final int serviceAction;
    final Data data;
    final boolean writesMedium;
    private final byte[] usage;
    final Handler handler;

    ScsiOpcode(int opcode, int serviceAction, Data data, boolean writesMedium, String usage, Handler handler) {
        this.opcode = opcode;
        this.serviceAction = serviceAction;
        this.data = data;
        this.writesMedium = writesMedium;
        this.usage = HexFormat.ofDelimiter(" ").parseHex(usage);
        this.handler = handler;
    }

    /** CDB usage data; its length is the CDB length. */
    byte[] usage() {
        return usage.clone();
    }

    int cdbLength() {
        return usage.length;
    }

    boolean hasServiceAction() {
        return serviceAction >= 0;
    }

    /** The sense a backstore IOException becomes (MEDIUM ERROR: read or write error). */
    Sense mediumError() {
        return data == Data.IN ? Sense.UNRECOVERED_READ_ERROR : Sense.WRITE_ERROR;
    }

    /**
     * The command a CDB names.
     *
     * @throws CheckCondition INVALID COMMAND OPERATION CODE, or INVALID FIELD IN CDB on the service action byte
     *                        when the opcode is known but the service action is not
     */
    static ScsiOpcode of(Cdb cdb) throws CheckCondition {
        int code = cdb.opcode();
        if (WITH_SERVICE_ACTION.contains(code)) {
            ScsiOpcode op = BY_CODE.get(key(code, cdb.serviceAction()));
            if (op == null) {
                throw CheckCondition.cdbField(1, 4);
            }
            return op;
        }
        ScsiOpcode op = BY_CODE.get(key(code, -1));
        if (op == null) {
            throw new CheckCondition(Sense.INVALID_COMMAND_OPERATION_CODE);
        }
        return op;
    }

    /** For REPORT SUPPORTED OPERATION CODES: the entry for opcode/service action, or null. */
    static ScsiOpcode lookup(int opcode, int serviceAction) {
        return BY_CODE.get(key(opcode, serviceAction));
    }

    /** Whether any entry carries this opcode with a service action. */
    static boolean usesServiceAction(int opcode) {
        return WITH_SERVICE_ACTION.contains(opcode);
    }

    private static int key(int opcode, int serviceAction) {
        return (opcode << 8) | (serviceAction & 0xff);
    }
}
