package org.jrdma.ib.core.shell;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.ToolRuns;
import org.jrdma.ib.core.spi.RdmaLinkOps;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.FieldOption;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The Gogo commands {@code rdma}, {@code ibv_devices} and {@code ibv_devinfo}. Each takes the
 * tool's arguments as words ({@code ibv_devinfo -d mlx0 -v}; Gogo passes them as they are to a
 * {@code String...} method without {@code @Parameter} annotations), prints to {@code System.out}
 * (Gogo redirects it per session; in batch mode a returned value would not be printed) and fails
 * with a {@link CommandFailure} carrying the real tool's stderr text and exit status, which the
 * {@code ./jrdma} launcher prints once and exits with.
 */
@Component(service = IbCommands.class, property = {
    "osgi.command.scope=rdma",
    "osgi.command.function=rdma",
    "osgi.command.function=ibv_devices",
    "osgi.command.function=ibv_devinfo"})
public class IbCommands {

    @Reference
    IbCore core;

    /** Drivers that create devices on request (rxe); they come and go with their bundles. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            fieldOption = FieldOption.UPDATE)
    final List<RdmaLinkOps> linkOps = new CopyOnWriteArrayList<>();

    public void rdma(String... args) {
        new Rdma(linkOps).execute(core, System.out, System.err, ToolRuns.words(args));
    }

    public void ibv_devices(String... args) {
        new IbvDevices().execute(core, System.out, System.err, ToolRuns.words(args));
    }

    public void ibv_devinfo(String... args) {
        new IbvDevinfo().execute(core, System.out, System.err, ToolRuns.words(args));
    }
}
