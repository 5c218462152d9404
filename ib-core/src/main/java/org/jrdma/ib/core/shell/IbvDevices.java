package org.jrdma.ib.core.shell;

import java.io.PrintStream;

import org.jrdma.ib.core.Guid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;

/**
 * {@code ibv_devices} (rdma-core {@code libibverbs/examples/device_list.c}): the devices and their
 * node GUIDs. Like the real tool it takes no options and ignores its arguments; with no device it
 * prints only the header.
 */
final class IbvDevices extends ShellTool {

    @Override
    void execute(IbCore core, PrintStream out, PrintStream err, String... args) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("    %-16s\t   node GUID\n", "device"));
        sb.append(String.format("    %-16s\t----------------\n", "------"));
        for (IbDevice d : core.devices()) {
            sb.append(String.format("    %-16s\t%s\n", d.name(), Guid.plain(d.nodeGuid())));
        }
        out.print(sb);
        out.flush();
    }
}
