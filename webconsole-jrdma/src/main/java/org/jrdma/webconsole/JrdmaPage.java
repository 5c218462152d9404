package org.jrdma.webconsole;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The page's HTML fragment (the console wraps it in its header, menu and footer): devices and ports, counters,
 * resources per client, the running ULPs' sections, and the script that keeps counters and resources live.
 */
final class JrdmaPage {
    static final String SCRIPT = loadScript();

    private JrdmaPage() {
    }

    /** {@code stateUrl}: the absolute path of state.json, which the script polls. */
    static String render(List<DeviceView> devices, List<UlpSection> ulps, String stateUrl) {
        Html h = new Html();
        h.raw("<div id=\"jrdma\" data-state=\"").text(stateUrl).raw("\">\n");
        DevicesSection.render(devices, h);
        CountersSection.render(devices, h);
        ResourcesSection.render(devices, h);
        for (UlpSection u : ulps) {
            try {
                u.render(h);
            } catch (RuntimeException e) {
                // a ULP that stops while we read it: the rest of the page still renders
                h.note("(a section failed: " + e + ")");
            }
        }
        h.raw("</div>\n<script>\n").raw(SCRIPT).raw("</script>\n");
        return h.toString();
    }

    private static String loadScript() {
        try (InputStream in = JrdmaPage.class.getResourceAsStream("jrdma.js")) {
            if (in == null) {
                throw new IllegalStateException("jrdma.js is missing from the bundle");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
