package org.jrdma.ulp.ipoib.shell;

import org.jrdma.ib.core.cli.ToolMain;
import org.jrdma.ib.core.cli.ToolRuns;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The Gogo commands of scope ipoib: {@code ip} (iproute2's {@code ip link}, {@code ip addr}, {@code ip neigh}) and
 * {@code ping} (iputils) over the IPoIB interfaces, and {@code cm} (the connected-mode connections).
 */
@Component(service = IpCommand.class, property = {
    "osgi.command.scope=ipoib",
    "osgi.command.function=ip",
    "osgi.command.function=ping",
    "osgi.command.function=cm"})
public class IpCommand {
    @Reference
    IpoibInterfaces interfaces;

    private final ToolRuns runs = new ToolRuns();

    public void ip(String... args) {
        runs.run(() -> ToolMain.execute(System.out, System.err,
                stderr -> new Ip(interfaces, System.out, stderr).main(ToolRuns.words(args))));
    }

    public void ping(String... args) {
        runs.run(() -> ToolMain.execute(System.out, System.err,
                stderr -> new Ping(interfaces, System.out, stderr).main(ToolRuns.words(args))));
    }

    public void cm(String... args) {
        runs.run(() -> ToolMain.execute(System.out, System.err,
                stderr -> CmView.main(interfaces, ToolRuns.words(args), System.out, stderr)));
    }

    @Deactivate
    void deactivate() {
        runs.interruptAll();
    }
}
