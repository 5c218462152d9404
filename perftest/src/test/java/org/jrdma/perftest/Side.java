package org.jrdma.perftest;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.IbCore;
import org.jrdma.testsupport.ToolRun;

/** One side of a perftest run (one "process"): a {@link ToolRun} of a {@link Perftest}, and its buffer at the end. */
final class Side extends ToolRun {
    /** A copy of the run's registered buffer at its end. */
    final AtomicReference<byte[]> buffer = new AtomicReference<>();

    private Side(String name, IbCore core, RdmaCm cm, String... args) {
        this(Perftest.named(name), core, cm, args);
    }

    private Side(Perftest tool, IbCore core, RdmaCm cm, String... args) {
        super(tool.name() + " " + String.join(" ", args), StandardCharsets.UTF_8, (o, e) -> tool.run(core, cm, o, e, args));
        tool.listening = this::listening;
        tool.beforeRelease = b -> {
            byte[] copy = new byte[b.remaining()];
            b.get(copy);
            buffer.set(copy);
        };
    }

    static Side start(String name, IbCore core, RdmaCm cm, String... args) {
        Side s = new Side(name, core, cm, args);
        s.start();
        return s;
    }

    static Side server(String name, IbCore core, RdmaCm cm, String... args) throws InterruptedException {
        Side s = start(name, core, cm, args);
        s.awaitListening(20);
        return s;
    }
}
