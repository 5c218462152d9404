package org.jrdma.webconsole;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibMode;
import org.jrdma.ulp.ipoib.IpoibStats;
import org.jrdma.ulp.ipoib.OperState;
import org.jrdma.ulp.iser.IserSession;
import org.junit.jupiter.api.Test;

/** The IPoIB and iSER sections' HTML from what the ULPs' APIs return. */
class UlpSectionsTest {
    @Test
    void ipoibInterfaceAsIpSLinkShowsIt() throws Exception {
        IpoibInterface ib0 = fake(IpoibInterface.class, Map.ofEntries(
                Map.entry("name", "ib0"), Map.entry("ifindex", 3), Map.entry("device", "lo0"), Map.entry("port", 1),
                Map.entry("state", OperState.UP), Map.entry("mode", IpoibMode.DATAGRAM), Map.entry("mtu", 2044),
                Map.entry("pkey", 0xffff),
                Map.entry("addresses", List.of(new IfAddress(InetAddress.getByName("10.0.0.1"), 24),
                        new IfAddress(InetAddress.getByName("fe80:0:0:0:6a72:646d:0:101"), 64))),
                Map.entry("stats", new IpoibStats(5, 500, 0, 1, 0, 7, 700, 0, 2, Map.of()))));
        Html h = new Html();
        IpoibSection.render(List.of(ib0), h);
        assertTrue(h.toString().contains("<tr><td>ib0</td><td>3</td><td>lo0/1</td><td>UP</td><td>DATAGRAM</td>"
                + "<td>2044</td><td>0xffff</td><td>10.0.0.1/24 fe80::6a72:646d:0:101/64</td><td>5</td><td>500</td><td>7</td><td>700</td>"
                + "<td>1/2</td></tr>"), h.toString());
    }

    @Test
    void iserSessionAsIscsiadmListsIt() {
        IserSession s = fake(IserSession.class, Map.of("sid", 1, "targetName", "iqn.2026-12.org.jrdma:t1",
                "portal", InetSocketAddress.createUnresolved("127.0.0.1", 3260), "portalGroupTag", 1,
                "state", IserSession.State.LOGGED_IN, "luns", List.of(0, 1), "queueDepth", 128));
        Html h = new Html();
        IserSection.render("iqn.2026-12.org.jrdma:01:abc", List.of(s), h);
        assertTrue(h.toString().contains("<p class=\"statline\">Initiator iqn.2026-12.org.jrdma:01:abc</p>"));
        assertTrue(h.toString().contains("<tr><td>1</td><td>iqn.2026-12.org.jrdma:t1</td><td>127.0.0.1:3260</td>"
                + "<td>1</td><td>LOGGED_IN</td><td>[0, 1]</td><td>128</td></tr>"), h.toString());
    }

    @Test
    void emptySectionsSayHowToMakeOne() {
        Html h = new Html();
        IpoibSection.render(List.of(), h);
        IserSection.render("iqn.x", List.of(), h);
        assertEquals("<h2 id=\"jrdma-ipoib-title\">IPoIB interfaces</h2>\n"
                + "<p class=\"statline\">No IPoIB interfaces (ip link add ... type ipoib makes one).</p>\n"
                + "<h2 id=\"jrdma-iser-title\">iSER sessions</h2>\n"
                + "<p class=\"statline\">Initiator iqn.x</p>\n"
                + "<p class=\"statline\">No iSER sessions (iscsiadm -m node -T TARGET -p PORTAL --login starts one).</p>\n",
                h.toString());
    }

    /** An implementation of {@code type} whose no-argument methods return {@code values} by name; others fail. */
    private static <T> T fake(Class<T> type, Map<String, Object> values) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            if (!values.containsKey(m.getName())) {
                throw new UnsupportedOperationException(m.getName());
            }
            return values.get(m.getName());
        }));
    }
}
