package org.jrdma.ib.tools;

import java.nio.charset.StandardCharsets;

import org.jrdma.ib.core.IbCore;
import org.jrdma.testsupport.ToolRun;

/** One side of a pingpong (one "process"): a {@link ToolRun} of a {@link PingpongTool}. */
final class Side extends ToolRun {
    private Side(PingpongTool tool, IbCore core, String... args) {
        super(tool.name() + " " + String.join(" ", args), StandardCharsets.UTF_8, (o, e) -> tool.run(core, o, e, args));
        tool.listening = this::listening;
    }

    static Side start(String tool, IbCore core, String... args) {
        Side s = new Side(PingpongTool.named(tool), core, args);
        s.start();
        return s;
    }

    /** Starts a server and waits until it listens. */
    static Side server(String tool, IbCore core, String... args) throws InterruptedException {
        Side s = start(tool, core, args);
        s.awaitListening(10);
        return s;
    }
}
