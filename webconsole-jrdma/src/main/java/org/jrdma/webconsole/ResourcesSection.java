package org.jrdma.webconsole;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.ResourceType;

/**
 * Resources per client ({@code rdma res}, split by owner), then every resource with its summary
 * ({@code rdma res show qp|cq|pd|mr|srq}). Count cells carry {@code data-res="DEV/OWNER/TYPE"} for the script.
 */
final class ResourcesSection {
    private ResourcesSection() {
    }

    static void render(List<DeviceView> devices, Html h) {
        h.heading("jrdma-resources-title", "Resources per client");
        List<String> headers = new ArrayList<>(List.of("Device", "Client"));
        for (ResourceType t : ResourceType.values()) {
            headers.add(ResourceCounts.label(t));
        }
        h.table("jrdma-resources", headers);
        for (DeviceView d : devices) {
            for (Map.Entry<String, Map<ResourceType, Integer>> o : ResourceCounts.byOwner(d.resources()).entrySet()) {
                h.raw("<tr>").cell(d.name()).cell(o.getKey());
                for (Map.Entry<ResourceType, Integer> c : o.getValue().entrySet()) {
                    h.raw("<td data-res=\"").text(d.name() + "/" + o.getKey() + "/" + ResourceCounts.label(c.getKey()))
                            .raw("\">").text(c.getValue()).raw("</td>");
                }
                h.raw("</tr>\n");
            }
        }
        h.endTable();
        h.heading("jrdma-resource-list-title", "Resources");
        h.table("jrdma-resource-list", List.of("Device", "Type", "Id", "Client", "Summary"));
        for (DeviceView d : devices) {
            for (ResourceInfo r : d.resources()) {
                h.row(List.of(d.name(), ResourceCounts.label(r.type()), r.id(), r.owner(), r.summary()));
            }
        }
        h.endTable();
    }
}
