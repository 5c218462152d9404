package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Shell.addMlx;
import static org.jrdma.ib.core.shell.Shell.addRxe;
import static org.jrdma.ib.core.shell.Shell.rdma;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.junit.jupiter.api.Test;

/** iproute2 6.1 rdma/dev.c. */
class RdmaDevTest {
    final IbCore core = IbCore.newInstance();

    static final String MLX0 = "0: mlx0: node_type ca fw 1.0.0 node_guid 0002:c903:0000:1234 "
            + "sys_image_guid 0002:c903:0000:1234 \n";
    static final String RXE0 = "1: rxe0: node_type ca fw 1.0.0 node_guid 5054:00ff:fec0:0002 "
            + "sys_image_guid 5054:00ff:fec0:0002 \n";
    static final String HELP = """
            Usage: rdma dev show [DEV]
                   rdma dev set [DEV] name DEVNAME
                   rdma dev set [DEV] netns NSNAME
                   rdma dev set [DEV] adaptive-moderation [on|off]
            """;

    @Test
    void showsEveryDevice() {
        addMlx(core);
        addRxe(core);
        rdma(core, "dev").is(0, MLX0 + RXE0, "");
        rdma(core, "dev", "show").is(0, MLX0 + RXE0, "");
        rdma(core, "dev", "list").is(0, MLX0 + RXE0, "");
        rdma(core, "d", "sh").is(0, MLX0 + RXE0, "");
    }

    @Test
    void noDeviceNoOutput() {
        rdma(core, "dev").is(0, "", "");
    }

    @Test
    void showsOneDevice() {
        addMlx(core);
        addRxe(core);
        rdma(core, "dev", "show", "rxe0").is(0, RXE0, "");
        rdma(core, "dev", "show", "foo").is(1, "", "Wrong device name - foo\n");
        rdma(core, "dev", "show", "rxe").is(1, "", "Wrong device name - rxe\n");
        rdma(core, "dev", "show", "mlx0", "extra").is(0, "", "Unknown parameter 'extra'.\n");
    }

    @Test
    void detailsAddAdaptiveModerationAndCaps() {
        addMlx(core);
        String line = "0: mlx0: node_type ca fw 1.0.0 node_guid 0002:c903:0000:1234 "
                + "sys_image_guid 0002:c903:0000:1234 adaptive-moderation off \n    caps: <>\n";
        rdma(core, "-d", "dev", "show", "mlx0").is(0, line, "");
        rdma(core, "dev", "--details").is(0, line, "");
    }

    @Test
    void capsAreNamedBitByBit() {
        long flags = 1L | 1L << 11 | 1L << 16 | 1L << 21 | 1L << 34 | 1L << 40;
        core.registrar().register(new Shell.FlagsDriver(LinkLayer.INFINIBAND, 0x0002c90300000001L, flags, 0)
                .registration("mlx0"));
        rdma(core, "-d", "dev").is(0, "0: mlx0: node_type ca fw 1.0.0 node_guid 0002:c903:0000:0001 "
                + "sys_image_guid 0002:c903:0000:0001 adaptive-moderation off \n"
                + "    caps: <RESIZE_MAX_WR, SYS_IMAGE_GUID, UNKNOWN, MEM_MGT_EXTENSIONS, RAW_SCATTER_FCS, UNKNOWN>\n",
                "");
    }

    @Test
    void renameWithDevSetName() {
        IbDevice mlx = addMlx(core);
        addRxe(core);
        rdma(core, "dev", "set", "mlx0", "name", "mlx_a").is(0, "", "");
        assertEquals("mlx_a", mlx.name());
        assertTrue(core.device("mlx_a").isPresent());
        rdma(core, "dev", "show", "mlx_a").is(0, MLX0.replace("mlx0", "mlx_a"), "");
        rdma(core, "dev", "set", "mlx_a", "name", "rxe0").is(1, "",
                "error: File exists\nreason: device name rxe0 is already in use\n");
        rdma(core, "dev", "set", "mlx_a", "name", "bad/name").is(1, "",
                "error: Invalid argument\nreason: device name 'bad/name' contains '/'\n");
        assertEquals("mlx_a", mlx.name());
    }

    @Test
    void devSetErrors() {
        addMlx(core);
        rdma(core, "dev", "set").is(1, "", "Please provide device name.\n");
        rdma(core, "dev", "set", "foo", "name", "x").is(1, "", "Wrong device name - foo\n");
        rdma(core, "dev", "set", "mlx0", "name").is(1, "", "Please provide device new name.\n");
        rdma(core, "dev", "set", "mlx0").is(0, HELP, "");
        rdma(core, "dev", "set", "mlx0", "bogus").is(0, "", "Unknown parameter 'bogus'.\n");
        rdma(core, "dev", "set", "mlx0", "netns", "blue").is(1, "",
                "Cannot open network namespace \"blue\": No such file or directory\n");
        rdma(core, "dev", "set", "mlx0", "adaptive-moderation", "on").is(1, "",
                "error: Operation not supported\nreason: jrdma CQs have no adaptive moderation (DIM) to switch\n");
        rdma(core, "dev", "set", "mlx0", "adaptive-moderation").is(0, HELP, "");
    }

    @Test
    void helpAndUnknownCommand() {
        rdma(core, "dev", "help").is(0, HELP, "");
        rdma(core, "dev", "foo").is(0, "", "Unknown dev command 'foo'.\n");
    }
}
