package org.jrdma.webconsole;

import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.jrdma.ib.core.IbCore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The jrdma page of the Felix Web Console, {@code /system/console/jrdma}: a plain servlet registered with the
 * console's plugin properties (the console's whiteboard), so it needs no console API. The console wraps the
 * page in its frame; a request with an extension ({@code /system/console/jrdma/state.json}) reaches us bare,
 * which is how the script gets its JSON, behind the console's login like the page.
 */
@Component(service = Servlet.class, property = {
    "felix.webconsole.label=" + JrdmaConsolePlugin.LABEL,
    "felix.webconsole.title=RDMA",
    "felix.webconsole.category=jrdma"
})
public final class JrdmaConsolePlugin extends HttpServlet {
    static final String LABEL = "jrdma";
    static final String STATE = "/state.json";
    /** The console's request attribute with the plugin's root path ({@code /system/console/jrdma}). */
    static final String ATTR_PLUGIN_ROOT = "felix.webconsole.pluginRoot";
    private static final long serialVersionUID = 1L;

    private final transient IbCore core;
    private final transient List<UlpSection> ulps = new CopyOnWriteArrayList<>();

    @Activate
    public JrdmaConsolePlugin(@Reference IbCore core) {
        this.core = core;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addUlp(UlpSection section) {
        ulps.add(section);
        ulps.sort(Comparator.comparingInt(UlpSection::order));
    }

    void removeUlp(UlpSection section) {
        ulps.remove(section);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String uri = req.getRequestURI();
        if (uri.endsWith(STATE)) {
            resp.setContentType("application/json");
            resp.setCharacterEncoding("UTF-8");
            resp.setHeader("Cache-Control", "no-store");
            resp.getWriter().write(StateJson.render(Snapshot.of(core)));
        } else if (uri.endsWith("/" + LABEL) || uri.endsWith(".html")) {
            resp.setContentType("text/html");
            resp.setCharacterEncoding("UTF-8");
            resp.getWriter().write(JrdmaPage.render(Snapshot.of(core), List.copyOf(ulps), pluginRoot(req) + STATE));
        } else {
            resp.sendError(HttpServletResponse.SC_NOT_FOUND, "no such jrdma page: " + uri);
        }
    }

    private static String pluginRoot(HttpServletRequest req) {
        Object root = req.getAttribute(ATTR_PLUGIN_ROOT);
        return root instanceof String s ? s : "/system/console/" + LABEL;
    }
}
