package org.jrdma.ib.core.cli;

import java.util.List;

import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;

/** How a tool gets its devices: the {@link IbClient} that owns what it allocates, and the device list walk of its {@code main}. */
public final class ToolClient {
    private ToolClient() {
    }

    /** The owner of everything a run allocates: {@code rdma resource} shows the tool's name, as Linux shows the process. */
    public static IbClient named(String prog) {
        return new IbClient() {
            @Override
            public String name() {
                return prog;
            }

            @Override
            public void add(IbDevice device) {
            }

            @Override
            public void remove(IbDevice device, Object clientData) {
            }
        };
    }

    /**
     * {@code ibv_get_device_list} and the walk after it: the first device when {@code ibDevname} is
     * null, else the one named; null after the C tools' message ("No IB devices found", "IB device
     * mlx5_0 not found") is appended to {@code stderr}.
     */
    public static IbDevice findDevice(IbCore core, String ibDevname, StringBuilder stderr) {
        List<IbDevice> devices = core.devices();
        if (ibDevname == null) {
            if (devices.isEmpty()) {
                stderr.append("No IB devices found\n");
                return null;
            }
            return devices.get(0);
        }
        for (IbDevice d : devices) {
            if (d.name().equals(ibDevname)) {
                return d;
            }
        }
        stderr.append("IB device ").append(ibDevname).append(" not found\n");
        return null;
    }
}
