package org.jrdma.webconsole;

import java.util.List;
import java.util.Map;

/**
 * Each port's hardware counters ({@code rdma statistic show link}), one row per counter. The value cells carry
 * {@code data-counter="DEV/PORT/NAME"}: the page's script finds them there to write the polled values in.
 */
final class CountersSection {
    private CountersSection() {
    }

    static void render(List<DeviceView> devices, Html h) {
        h.heading("jrdma-counters-title", "Port counters");
        h.raw("<p class=\"statline\" id=\"jrdma-live\" data-polls=\"0\">Live: waiting for the first update</p>\n");
        h.table("jrdma-counters", List.of("Link", "Counter", "Value"));
        for (DeviceView d : devices) {
            for (PortView p : d.ports()) {
                String link = d.name() + "/" + p.port();
                if (p.counters().isEmpty()) {
                    h.row(List.of(link, "-", "(the " + d.driver() + " driver has no counters)"));
                    continue;
                }
                for (Map.Entry<String, Long> c : p.counters().entrySet()) {
                    h.raw("<tr>").cell(link).cell(c.getKey());
                    h.raw("<td data-counter=\"").text(link + "/" + c.getKey()).raw("\">")
                            .text(Long.toUnsignedString(c.getValue())).raw("</td></tr>\n");
                }
            }
        }
        h.endTable();
    }
}
