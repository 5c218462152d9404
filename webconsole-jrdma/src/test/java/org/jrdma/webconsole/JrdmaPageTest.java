package org.jrdma.webconsole;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.cli.ToolClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The page's HTML from a real two-port hw-loopback device in a private registry. */
class JrdmaPageTest {
    private static final IbClient WEBTEST = ToolClient.named("webtest");

    private LoopbackDevice lo;
    private IbCore core;
    private IbDevice dev;

    @BeforeEach
    void setUp() {
        core = IbCore.newInstance();
        lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0x0002c90300000101L);
        dev = lo.register(core.registrar()).device();
    }

    @AfterEach
    void tearDown() {
        lo.close();
    }

    @Test
    void devicesAndPortsAsTheDeviceReportsThem() {
        String html = JrdmaPage.render(Snapshot.of(core), List.of(), "/system/console/jrdma/state.json");
        assertTrue(html.contains("<tr><td>" + dev.name() + "</td><td>" + dev.index() + "</td><td>"
                + dev.driverName() + "</td><td>" + dev.nodeType().label() + "</td><td>0002:c903:0000:0101</td><td>2</td></tr>"),
                html);
        for (int p = 1; p <= 2; p++) {
            PortAttr a = dev.queryPort(p);
            String row = cellsOf(html, "<tr data-link=\"" + dev.name() + "/" + p + "\">");
            assertTrue(row.startsWith("<td>" + dev.name() + "/" + p + "</td><td>" + a.state().name() + "</td><td>"
                    + a.physState().name() + "</td><td>" + a.activeMtu().bytes() + "/" + a.maxMtu().bytes()
                    + "</td><td>" + dev.linkLayer(p).label() + "</td><td>" + a.lid() + "</td><td>-</td>"), row);
            assertTrue(row.contains(dev.queryGid(p, 0).toCompressedString()), "port " + p + " GID 0 in " + row);
        }
        // hw-loopback's one hardware counter (port_rcv_errors: what it drops at a port) is a live cell per port
        for (int p = 1; p <= 2; p++) {
            assertTrue(html.contains("<tr><td>" + dev.name() + "/" + p + "</td><td>port_rcv_errors</td><td data-counter=\""
                    + dev.name() + "/" + p + "/port_rcv_errors\">0</td></tr>"), html);
        }
        assertFalse(html.contains("driver has no counters"), html);
        assertTrue(html.contains("<div id=\"jrdma\" data-state=\"/system/console/jrdma/state.json\">"));
        assertTrue(html.contains("<script>\n// The jrdma page") && html.contains("setTimeout(poll, 1000)"));
        assertFalse(html.contains("${"), "the console would take ${...} for its template variables");
    }

    @Test
    void resourcesPerClientCountWhatTheClientHolds() {
        ProtectionDomain pd = dev.allocPd(WEBTEST);
        CompletionQueue cq = dev.createCq(WEBTEST, new CqInitAttr().cqe(16));
        try {
            String html = JrdmaPage.render(Snapshot.of(core), List.of(), "/s");
            String name = dev.name();
            assertTrue(html.contains("<tr><td>" + name + "</td><td>webtest</td>"
                    + "<td data-res=\"" + name + "/webtest/pd\">1</td><td data-res=\"" + name + "/webtest/cq\">1</td>"
                    + "<td data-res=\"" + name + "/webtest/qp\">0</td>"), html);
            for (ResourceInfo r : dev.resources()) {
                if (r.owner().equals("webtest")) {
                    assertTrue(html.contains("<tr><td>" + name + "</td><td>" + ResourceCounts.label(r.type()) + "</td><td>"
                            + r.id() + "</td><td>webtest</td><td>" + Html.escape(r.summary()) + "</td></tr>"), html);
                }
            }
            String json = StateJson.render(Snapshot.of(core));
            assertTrue(json.contains("\"webtest\":{\"pd\":1,\"cq\":1,\"qp\":0,\"srq\":0,\"mr\":0,\"mw\":0,\"ah\":0}"), json);
        } finally {
            cq.destroy();
            pd.dealloc();
        }
        assertFalse(JrdmaPage.render(Snapshot.of(core), List.of(), "/s").contains("webtest"));
    }

    @Test
    void ulpSectionsInTheirOrderAndAFailingOneDoesNotBreakThePage() {
        UlpSection second = section(20, h -> h.heading("b", "Second"));
        UlpSection broken = section(15, h -> {
            throw new IllegalStateException("stopped");
        });
        UlpSection first = section(10, h -> h.heading("a", "First"));
        String html = JrdmaPage.render(List.of(), List.of(first, broken, second), "/s");
        assertTrue(html.contains("No RDMA devices are registered."));
        int a = html.indexOf("First");
        int failed = html.indexOf("(a section failed: java.lang.IllegalStateException: stopped)");
        int b = html.indexOf("Second");
        assertTrue(a > 0 && failed > a && b > failed, html);
    }

    @Test
    void deviceAndResourceTextIsEscaped() {
        PortView port = new PortView(1, "ACTIVE", "LINK_UP", 1024, 4096, "Ethernet", 0, "eth<0>", List.of(),
                Map.of("x\"<", 5L));
        DeviceView d = new DeviceView("rxe<b>", 0, "rxe", "RNIC", "0000:0000:0000:0000", List.of(port),
                List.of(new ResourceInfo(ResourceType.QP, 7, "a&b", "<script>alert(1)</script>")));
        String html = JrdmaPage.render(List.of(d), List.of(), "/s\"x");
        assertFalse(html.contains("<b>") || html.contains("<script>alert") || html.contains("eth<0>"), html);
        assertTrue(html.contains("<td>rxe&lt;b&gt;/1</td>"));
        assertTrue(html.contains("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"));
        assertTrue(html.contains("data-counter=\"rxe&lt;b&gt;/1/x&quot;&lt;\">5</td>"), html);
        assertTrue(html.contains("data-state=\"/s&quot;x\""));
    }

    private static String cellsOf(String html, String rowStart) {
        Matcher m = Pattern.compile(Pattern.quote(rowStart) + "(.*?)</tr>").matcher(html);
        assertTrue(m.find(), "no row " + rowStart + " in " + html);
        return m.group(1);
    }

    private static UlpSection section(int order, java.util.function.Consumer<Html> body) {
        return new UlpSection() {
            @Override
            public int order() {
                return order;
            }

            @Override
            public void render(Html h) {
                body.accept(h);
            }
        };
    }
}
