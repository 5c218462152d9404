package org.jrdma.webconsole;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.ResourceType;
import org.junit.jupiter.api.Test;

/** state.json, byte for byte: what the page's script reads. */
class StateJsonTest {
    @Test
    void countersInDriverOrderUnsignedAndClientsSorted() {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("sent_pkts", 10L);
        counters.put("rcvd_pkts", 9L);
        counters.put("wrapped", -1L);
        PortView p1 = new PortView(1, "ACTIVE", "LINK_UP", 1024, 4096, "Ethernet", 0, "lo", List.of(), counters);
        List<ResourceInfo> res = List.of(new ResourceInfo(ResourceType.QP, 1, "mad", "qp"),
                new ResourceInfo(ResourceType.PD, 2, "ib_send_bw", "pd"),
                new ResourceInfo(ResourceType.QP, 3, "mad", "qp"));
        DeviceView rxe = new DeviceView("rxe0", 1, "rxe", "RNIC", "0", List.of(p1), res);
        PortView lp = new PortView(2, "DOWN", "DISABLED", 1024, 4096, "InfiniBand", 2, null, List.of(), Map.of());
        DeviceView lo = new DeviceView("lo\"0", 0, "loopback", "CA", "0", List.of(lp), List.of());
        assertEquals("{\"devices\":["
                + "{\"name\":\"rxe0\",\"ports\":[{\"port\":1,\"state\":\"ACTIVE\",\"counters\":"
                + "{\"sent_pkts\":10,\"rcvd_pkts\":9,\"wrapped\":18446744073709551615}}],"
                + "\"clients\":{\"ib_send_bw\":{\"pd\":1,\"cq\":0,\"qp\":0,\"srq\":0,\"mr\":0,\"mw\":0,\"ah\":0},"
                + "\"mad\":{\"pd\":0,\"cq\":0,\"qp\":2,\"srq\":0,\"mr\":0,\"mw\":0,\"ah\":0}}},"
                + "{\"name\":\"lo\\\"0\",\"ports\":[{\"port\":2,\"state\":\"DOWN\",\"counters\":{}}],\"clients\":{}}"
                + "]}", StateJson.render(List.of(rxe, lo)));
    }

    @Test
    void noDevices() {
        assertEquals("{\"devices\":[]}", StateJson.render(List.of()));
    }

    @Test
    void jsonStringsEscapeQuotesBackslashesAndControls() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\u00e9\"", Json.quote("a\"b\\c\nd\u0001\u00e9"));
    }
}
