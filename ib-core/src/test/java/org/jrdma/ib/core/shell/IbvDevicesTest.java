package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Shell.addMlx;
import static org.jrdma.ib.core.shell.Shell.addRxe;
import static org.jrdma.ib.core.shell.Shell.run;

import org.jrdma.ib.core.IbCore;
import org.junit.jupiter.api.Test;

/** Golden output of rdma-core's device_list.c. */
class IbvDevicesTest {
    final IbCore core = IbCore.newInstance();

    @Test
    void listsDevicesWithTheirNodeGuid() {
        addMlx(core);
        addRxe(core);
        run(new IbvDevices(), core).is(0, ""
                + "    device          \t   node GUID\n"
                + "    ------          \t----------------\n"
                + "    mlx0            \t0002c90300001234\n"
                + "    rxe0            \t505400fffec00002\n", "");
    }

    @Test
    void noDeviceIsTheHeaderAlone() {
        run(new IbvDevices(), core).is(0, ""
                + "    device          \t   node GUID\n"
                + "    ------          \t----------------\n", "");
    }

    @Test
    void aNameLongerThanTheColumnIsNotCut() {
        core.registrar().register(new org.jrdma.ib.core.testdriver.TestDriver(1,
                org.jrdma.ib.core.LinkLayer.ETHERNET, 1L).registration("rxe_very_long_name0"));
        run(new IbvDevices(), core).is(0, ""
                + "    device          \t   node GUID\n"
                + "    ------          \t----------------\n"
                + "    rxe_very_long_name0\t0000000000000001\n", "");
    }

    @Test
    void argumentsAreIgnoredAsByTheRealTool() {
        addMlx(core);
        run(new IbvDevices(), core, "-x", "foo").is(0, ""
                + "    device          \t   node GUID\n"
                + "    ------          \t----------------\n"
                + "    mlx0            \t0002c90300001234\n", "");
    }
}
