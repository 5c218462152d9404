package org.jrdma.ulp.iser.scsi;

import java.io.ByteArrayOutputStream;

/**
 * REPORT SUPPORTED OPERATION CODES (SPC-4 6.35, MAINTENANCE IN 0xa3 / 0x0c) from the {@link ScsiOpcode} table:
 * reporting options 000b (all commands: 8-byte descriptors), 001b (one opcode without service action), 010b
 * (opcode and service action), 011b (SPC-5: either); RCTD adds the command timeouts descriptor (timeouts not
 * specified: zero).
 */
final class SupportedOpcodes {
    private static final int SUPPORT_NOT_SUPPORTED = 0x01;
    private static final int SUPPORT_STANDARD = 0x03;
    private static final int TIMEOUTS_LENGTH = 12;

    private SupportedOpcodes() {
    }

    static int execute(Command c) throws CheckCondition {
        Cdb cdb = c.cdb;
        boolean rctd = cdb.bit(2, 7);
        int options = cdb.u8(2) & 0x07;
        int opcode = cdb.u8(3);
        int serviceAction = cdb.u16(4);
        byte[] data = switch (options) {
            case 0 -> all(rctd);
            case 1 -> {
                if (ScsiOpcode.usesServiceAction(opcode)) {
                    throw CheckCondition.cdbField(2, 2);
                }
                yield one(ScsiOpcode.lookup(opcode, -1), rctd);
            }
            case 2 -> {
                if (!ScsiOpcode.usesServiceAction(opcode)) {
                    throw CheckCondition.cdbField(2, 2);
                }
                yield one(serviceAction > 0x1f ? null : ScsiOpcode.lookup(opcode, serviceAction), rctd);
            }
            case 3 -> one(ScsiOpcode.usesServiceAction(opcode)
                    ? serviceAction > 0x1f ? null : ScsiOpcode.lookup(opcode, serviceAction)
                    : ScsiOpcode.lookup(opcode, -1), rctd);
            default -> throw CheckCondition.cdbField(2, 2);
        };
        return c.respond(data, (int) Math.min(Integer.MAX_VALUE, cdb.u32(6)));
    }

    /** All_commands parameter data: COMMAND DATA LENGTH, then a command descriptor per table entry. */
    private static byte[] all(boolean rctd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[4]);
        for (ScsiOpcode op : ScsiOpcode.values()) {
            byte[] d = new byte[8];
            d[0] = (byte) op.opcode;
            VpdPage.put(d, 2, 2, op.hasServiceAction() ? op.serviceAction : 0);
            d[5] = (byte) ((rctd ? 0x02 : 0) | (op.hasServiceAction() ? 0x01 : 0)); // CTDP, SERVACTV
            VpdPage.put(d, 6, 2, op.cdbLength());
            out.writeBytes(d);
            if (rctd) {
                out.writeBytes(timeouts());
            }
        }
        byte[] b = out.toByteArray();
        VpdPage.put(b, 0, 4, b.length - 4);
        return b;
    }

    /** One_command parameter data: SUPPORT, CDB SIZE, CDB USAGE DATA (and the timeouts descriptor). */
    private static byte[] one(ScsiOpcode op, boolean rctd) {
        if (op == null) {
            return new byte[] {0, SUPPORT_NOT_SUPPORTED, 0, 0};
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] usage = op.usage();
        out.write(0);
        out.write((rctd ? 0x80 : 0) | SUPPORT_STANDARD);
        out.write(usage.length >>> 8);
        out.write(usage.length);
        out.writeBytes(usage);
        if (rctd) {
            out.writeBytes(timeouts());
        }
        return out.toByteArray();
    }

    /** Command timeouts descriptor (SPC-4 6.35.4): DESCRIPTOR LENGTH 0Ah, timeouts 0 = not specified. */
    private static byte[] timeouts() {
        byte[] t = new byte[TIMEOUTS_LENGTH];
        t[1] = TIMEOUTS_LENGTH - 2;
        return t;
    }
}
