package org.jrdma.webconsole;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.VerbsException;

/**
 * Reads the registry into {@link DeviceView}s. A device that unregisters while it is read (ENODEV) is left out,
 * as {@code ibv_devices} would not list it a moment later: the page never fails because a device went.
 */
final class Snapshot {
    private Snapshot() {
    }

    static List<DeviceView> of(IbCore core) {
        List<DeviceView> views = new ArrayList<>();
        for (IbDevice dev : core.devices()) {
            try {
                views.add(device(dev));
            } catch (VerbsException e) {
                // gone while we read it
            }
        }
        return views;
    }

    static DeviceView device(IbDevice dev) {
        List<PortView> ports = new ArrayList<>();
        for (int p = 1; p <= dev.physPortCnt(); p++) {
            ports.add(port(dev, p));
        }
        return new DeviceView(dev.name(), dev.index(), dev.driverName(), dev.nodeType().label(),
                guid(dev.nodeGuid()), List.copyOf(ports), List.copyOf(dev.resources()));
    }

    private static PortView port(IbDevice dev, int p) {
        PortAttr a = dev.queryPort(p);
        List<String> gids = new ArrayList<>();
        for (int i = 0; i < a.gidTblLen(); i++) {
            Gid gid = dev.queryGid(p, i);
            if (gid != null && gid.interfaceId() != 0) {
                gids.add(i + " " + gid.toCompressedString());
            }
        }
        Map<String, Long> counters = dev.queryHwStats(p);
        return new PortView(p, a.state().name(), a.physState().name(), a.activeMtu().bytes(), a.maxMtu().bytes(),
                dev.linkLayer(p).label(), a.lid(), dev.getNetdev(p), List.copyOf(gids), counters);
    }

    /** {@code ibv_devinfo}'s node_guid form: four groups of four hex digits. */
    static String guid(long guid) {
        String hex = String.format("%016x", guid);
        return hex.substring(0, 4) + ':' + hex.substring(4, 8) + ':' + hex.substring(8, 12) + ':' + hex.substring(12);
    }
}
