package org.jrdma.webconsole;

import java.util.List;

/** Devices ({@code ibv_devices}, {@code rdma dev}) and their ports ({@code ibv_devinfo}, {@code rdma link}). */
final class DevicesSection {
    private DevicesSection() {
    }

    static void render(List<DeviceView> devices, Html h) {
        h.heading("jrdma-devices-title", "Devices");
        if (devices.isEmpty()) {
            h.note("No RDMA devices are registered.");
            return;
        }
        h.table("jrdma-devices", List.of("Device", "Index", "Driver", "Node type", "Node GUID", "Ports"));
        for (DeviceView d : devices) {
            h.row(List.of(d.name(), d.index(), d.driver(), d.nodeType(), d.nodeGuid(), d.ports().size()));
        }
        h.endTable();
        h.heading("jrdma-ports-title", "Ports");
        h.table("jrdma-ports", List.of("Link", "State", "Physical state", "MTU (active/max)", "Link layer", "LID",
                "netdev", "GIDs"));
        for (DeviceView d : devices) {
            for (PortView p : d.ports()) {
                h.raw("<tr data-link=\"").text(d.name() + "/" + p.port()).raw("\">");
                h.cell(d.name() + "/" + p.port()).cell(p.state()).cell(p.physState())
                        .cell(p.activeMtu() + "/" + p.maxMtu()).cell(p.linkLayer()).cell(p.lid())
                        .cell(p.netdev() == null ? "-" : p.netdev());
                h.raw("<td>");
                for (int i = 0; i < p.gids().size(); i++) {
                    h.raw(i == 0 ? "" : "<br>").text(p.gids().get(i));
                }
                h.raw("</td></tr>\n");
            }
        }
        h.endTable();
    }
}
