package org.jrdma.ulp.iser.scsi;

/**
 * The mode pages MODE SENSE reports (SPC-4 7.5, SBC-3 6.5), their current values as LIO's spc_modesense_*
 * fill them. Nothing is changeable (there is no MODE SELECT), so the changeable values are all zero.
 */
enum ModePage {
    /** Read-write error recovery: all defaults. */
    READ_WRITE_ERROR_RECOVERY(0x01, 12) {
        @Override
        void current(byte[] p, ScsiLun lun) {
        }
    },
    /** Caching: WCE for fileio (the page cache is a write-back cache, SYNCHRONIZE CACHE flushes it), DRA. */
    CACHING(0x08, 20) {
        @Override
        void current(byte[] p, ScsiLun lun) {
            if (lun.backstore() instanceof FileioBackstore) {
                p[2] = 0x04; // WCE
            }
            p[12] = 0x20; // DRA: read ahead disabled
        }
    },
    /** Control: GLTSD, unrestricted reordering, TAS, unlimited busy timeout. */
    CONTROL(0x0a, 12) {
        @Override
        void current(byte[] p, ScsiLun lun) {
            p[2] = 0x02; // GLTSD
            p[3] = 0x10; // QUEUE ALGORITHM MODIFIER 1: unrestricted reordering allowed
            p[5] = 0x40; // TAS: aborted commands get TASK ABORTED status
            p[8] = (byte) 0xff; // BUSY TIMEOUT PERIOD: unlimited
            p[9] = (byte) 0xff;
        }
    },
    /** Informational exceptions control: nothing reported. */
    INFORMATIONAL_EXCEPTIONS(0x1c, 12) {
        @Override
        void current(byte[] p, ScsiLun lun) {
        }
    };

    /** Page code 3Fh: all pages. */
    static final int ALL_PAGES = 0x3f;

    final int code;
    final int length;

    ModePage(int code, int length) {
        this.code = code;
        this.length = length;
    }

    /** Fills the parameter bytes (after the 2-byte page header) of the current values. */
    abstract void current(byte[] page, ScsiLun lun);

    /** The page, page code and PAGE LENGTH set; {@code changeable}: the all-zero mask of MODE SENSE PC=01b. */
    byte[] build(ScsiLun lun, boolean changeable) {
        byte[] p = new byte[length];
        if (!changeable) {
            current(p, lun);
        }
        p[0] = (byte) code;
        p[1] = (byte) (length - 2);
        return p;
    }

    static ModePage of(int code) {
        for (ModePage p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }
}
