package org.jrdma.ulp.iser.shell;

import org.jrdma.ib.core.cli.ToolMain;
import org.jrdma.ib.core.cli.ToolRuns;
import org.jrdma.ulp.iser.IserInitiator;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The Gogo commands {@code iscsiadm} and {@code iser_io} of the initiator. A failure is a
 * {@code CommandFailure} with the tool's stderr text and exit status; Ctrl-C ends a wait with status 130.
 */
@Component(service = IscsiadmCommand.class, property = {
    "osgi.command.scope=iser",
    "osgi.command.function=iscsiadm",
    "osgi.command.function=iser_io"})
public class IscsiadmCommand {

    @Reference
    IserInitiator initiator;

    private final ToolRuns runs = new ToolRuns();

    public void iscsiadm(String... args) {
        runs.run(() -> ToolMain.execute(System.out, System.err,
                stderr -> new Iscsiadm(initiator, System.out, stderr).main(ToolRuns.words(args))));
    }

    public void iser_io(String... args) {
        runs.run(() -> ToolMain.execute(System.out, System.err,
                stderr -> new IserIo(initiator, System.out, stderr).main(ToolRuns.words(args))));
    }

    @Deactivate
    void deactivate() {
        runs.interruptAll();
    }
}
