package org.jrdma.ulp.ipoib.shell;

import org.jrdma.ib.core.cli.ToolMain;
import org.jrdma.ib.core.cli.ToolRuns;
import org.jrdma.ulp.ipoib.tun.TunAttachments;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** The Gogo command {@code ipoib} (scope ipoib): TUN devices that put the host's IP stack on IPoIB interfaces. */
@Component(service = TunCommand.class, property = {
    "osgi.command.scope=ipoib",
    "osgi.command.function=ipoib"})
public class TunCommand {
    @Reference
    TunAttachments tuns;

    private final ToolRuns runs = new ToolRuns();

    public void ipoib(String... args) {
        runs.run(() -> ToolMain.execute(System.out, System.err,
                stderr -> new IpoibTool(tuns, System.out, stderr).main(ToolRuns.words(args))));
    }
}
