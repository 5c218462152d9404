package org.jrdma.ulp.iser.scsi;

import java.io.ByteArrayOutputStream;

/**
 * MODE SENSE(6) and (10) (SPC-4 6.11/6.12): header (WP for a read-only LUN, DPOFUA), the block descriptor unless
 * DBD (the long form with LLBAA in the 10-byte CDB), then one page or all of {@link ModePage} (page 3Fh with
 * subpage 00h or FFh). Saved values are not supported.
 */
final class ModeSense {
    private static final int PC_CHANGEABLE = 1;
    private static final int PC_SAVED = 3;

    private ModeSense() {
    }

    static int modeSense6(Command c) throws CheckCondition {
        return execute(c, false);
    }

    static int modeSense10(Command c) throws CheckCondition {
        return execute(c, true);
    }

    private static int execute(Command c, boolean ten) throws CheckCondition {
        Cdb cdb = c.cdb;
        boolean dbd = cdb.bit(1, 3);
        boolean llbaa = ten && cdb.bit(1, 4);
        int pc = cdb.u8(2) >>> 6;
        if (pc == PC_SAVED) {
            throw new CheckCondition(Sense.SAVING_PARAMETERS_NOT_SUPPORTED);
        }
        byte[] pages = pages(c.lun, cdb.u8(2) & 0x3f, cdb.u8(3), pc == PC_CHANGEABLE);
        byte[] descriptor = dbd ? new byte[0] : blockDescriptor(c.lun, llbaa);
        int headerLength = ten ? 8 : 4;
        byte[] b = new byte[headerLength + descriptor.length + pages.length];
        // WP; DPOFUA where FUA means something (fileio's page cache), as LIO sets it only with a write cache
        boolean dpofua = c.lun.backstore() instanceof FileioBackstore;
        int deviceSpecific = (c.lun.readOnly() ? 0x80 : 0) | (dpofua ? 0x10 : 0);
        if (ten) {
            VpdPage.put(b, 0, 2, b.length - 2);
            b[3] = (byte) deviceSpecific;
            b[4] = (byte) (llbaa && !dbd ? 0x01 : 0); // LONGLBA
            VpdPage.put(b, 6, 2, descriptor.length);
        } else {
            b[0] = (byte) (b.length - 1);
            b[2] = (byte) deviceSpecific;
            b[3] = (byte) descriptor.length;
        }
        System.arraycopy(descriptor, 0, b, headerLength, descriptor.length);
        System.arraycopy(pages, 0, b, headerLength + descriptor.length, pages.length);
        return c.respond(b, ten ? cdb.u16(7) : cdb.u8(4));
    }

    private static byte[] pages(ScsiLun lun, int code, int subpage, boolean changeable) throws CheckCondition {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (code == ModePage.ALL_PAGES) {
            if (subpage != 0x00 && subpage != 0xff) {
                throw CheckCondition.cdbField(3, -1);
            }
            for (ModePage p : ModePage.values()) {
                out.writeBytes(p.build(lun, changeable));
            }
            return out.toByteArray();
        }
        ModePage page = ModePage.of(code);
        if (page == null) {
            throw CheckCondition.cdbField(2, 5);
        }
        if (subpage != 0) {
            throw CheckCondition.cdbField(3, -1);
        }
        return page.build(lun, changeable);
    }

    /** Short (8 bytes, block count capped at FFFFFFFFh) or long LBA (16 bytes) mode parameter block descriptor. */
    private static byte[] blockDescriptor(ScsiLun lun, boolean longLba) {
        if (longLba) {
            byte[] d = new byte[16];
            VpdPage.put(d, 0, 8, lun.blocks());
            VpdPage.put(d, 12, 4, lun.blockSize());
            return d;
        }
        byte[] d = new byte[8];
        VpdPage.put(d, 0, 4, Math.min(lun.blocks(), 0xffff_ffffL));
        VpdPage.put(d, 5, 3, lun.blockSize());
        return d;
    }
}
