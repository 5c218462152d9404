package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.hex;
import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.jrdma.ulp.iser.scsi.Scsi.out;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MODE SENSE(6)/(10) against the SPC-4 header, block descriptor and page layouts; MODE SELECT as LIO. */
class ModeSenseTest {
    private static final long SIZE = 64L << 20;
    private static final String RW_RECOVERY = "01 0a 00 00 00 00 00 00 00 00 00 00";
    private static final String CACHING = "08 12 00 00 00 00 00 00 00 00 00 00 20 00 00 00 00 00 00 00";
    private static final String CACHING_WCE = "08 12 04 00 00 00 00 00 00 00 00 00 20 00 00 00 00 00 00 00";
    private static final String CONTROL = "0a 0a 02 10 00 40 00 00 ff ff 00 00";
    private static final String IE = "1c 0a 00 00 00 00 00 00 00 00 00 00";
    private static final String DESCRIPTOR = "00 02 00 00 00 00 02 00";

    @TempDir
    Path dir;

    @Test
    void allPagesOfARamdisk() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        String all = RW_RECOVERY + " " + CACHING + " " + CONTROL + " " + IE;
        in(t, 0, "1a 00 3f 00 ff 00", 255).good().data("43 00 00 08 " + DESCRIPTOR + " " + all);
        in(t, 0, "1a 00 3f ff ff 00", 255).good().data("43 00 00 08 " + DESCRIPTOR + " " + all);
        in(t, 0, "1a 08 3f 00 ff 00", 255).good().data("3b 00 00 00 " + all); // DBD
        in(t, 0, "1a 00 3f 00 04 00", 4).good().data("43 00 00 08"); // sd's first probe
        in(t, 0, "5a 00 3f 00 00 00 00 00 ff 00", 255).good()
                .data("00 46 00 00 00 00 00 08 " + DESCRIPTOR + " " + all);
    }

    @Test
    void singlePagesAndChangeableValues() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        in(t, 0, "1a 08 08 00 ff 00", 255).good().data("17 00 00 00 " + CACHING);
        in(t, 0, "1a 08 0a 00 ff 00", 255).good().data("0f 00 00 00 " + CONTROL);
        in(t, 0, "1a 08 4a 00 ff 00", 255).good().data("0f 00 00 00 0a 0a" + " 00".repeat(10)); // PC=01b
        in(t, 0, "1a 08 8a 00 ff 00", 255).good().data("0f 00 00 00 " + CONTROL); // default values
    }

    @Test
    void readOnlyFileioHasWpDpofuaWceAndTheLongDescriptor() {
        LunTable t = Stores.FILEIO.table(dir, SIZE, true);
        in(t, 0, "1a 00 08 00 ff 00", 255).good().data("1f 00 90 08 " + DESCRIPTOR + " " + CACHING_WCE);
        in(t, 0, "5a 10 08 00 00 00 00 00 ff 00", 255).good()
                .data("00 2a 00 90 01 00 00 10 00 00 00 00 00 02 00 00 00 00 00 00 00 00 02 00 " + CACHING_WCE);
    }

    @Test
    void badPagesAndSavedValues() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, false);
        in(t, 0, "1a 00 19 00 ff 00", 255).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 2);
        in(t, 0, "1a 00 08 01 ff 00", 255).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 3);
        in(t, 0, "1a 00 3f 05 ff 00", 255).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 3);
        in(t, 0, "1a 00 c8 00 ff 00", 255).check(Sense.SAVING_PARAMETERS_NOT_SUPPORTED);
    }

    @Test
    void modeSelectAcceptsTheCurrentPageOnly() {
        LunTable t = Stores.RAMDISK.table(dir, SIZE, true); // read-only: MODE SELECT does not write the medium
        byte[] same = hex("00 00 00 08 " + DESCRIPTOR + " " + CACHING);
        out(t, 0, hex("15 10 00 00 20 00"), same).good();
        byte[] noDescriptor = hex("00 00 00 00 00 00 00 00 " + CONTROL);
        out(t, 0, hex("55 10 00 00 00 00 00 00 14 00"), noDescriptor).good();
        byte[] wce = hex("00 00 00 08 " + DESCRIPTOR + " " + CACHING_WCE); // turning the write cache on
        out(t, 0, hex("15 10 00 00 20 00"), wce).check(Sense.INVALID_FIELD_IN_PARAMETER_LIST).pointer(false, 14);
        byte[] unknown = hex("00 00 00 00 19 06 00 00 00 00 00 00");
        out(t, 0, hex("15 10 00 00 0c 00"), unknown).check(Sense.INVALID_FIELD_IN_PARAMETER_LIST).pointer(false, 4);
        out(t, 0, hex("15 10 00 00 10 00"), java.util.Arrays.copyOf(same, 16))
                .check(Sense.PARAMETER_LIST_LENGTH_ERROR); // the page cut short
        out(t, 0, hex("15 00 00 00 20 00"), same).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1); // PF 0
        out(t, 0, hex("15 11 00 00 20 00"), same).check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 1); // SP
        out(t, 0, hex("15 10 00 00 20 00"), 16, java.util.Arrays.copyOf(same, 16))
                .check(Sense.INVALID_FIELD_IN_CDB).pointer(true, 4); // list longer than EDTL
        out(t, 0, hex("15 10 00 00 00 00"), new byte[0]).good();
    }
}
