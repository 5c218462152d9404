package org.jrdma.ulp.iser.shell;

import java.util.List;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.ToolMain;
import org.jrdma.ib.core.cli.ToolRuns;
import org.jrdma.ulp.iser.target.IserTargetService;
import org.jrdma.ulp.iser.target.SessionInfo;
import org.jrdma.ulp.iser.target.TargetTree;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The Gogo command {@code targetcli}: targetcli-fb's one-shot form with its words as they are
 * ({@code targetcli /backstores/ramdisk create rd0 64M}), so a batch line of several can set a target up. Info
 * on {@code System.out}; an error is a {@link CommandFailure} with targetcli's text and status 1.
 */
@Component(service = TargetcliCommand.class, property = {
    "osgi.command.scope=iser",
    "osgi.command.function=targetcli"})
public class TargetcliCommand {

    @Reference
    TargetTree tree;

    /** The target runtime, for {@code targetcli sessions}; absent without an RDMA CM. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile IserTargetService target;

    private List<SessionInfo> sessions() {
        IserTargetService t = target;
        return t == null ? List.of() : t.sessions();
    }

    public void targetcli(String... args) {
        String[] words = ToolRuns.words(args);
        if (words.length == 0) {
            throw new CommandFailure(1, "targetcli: no interactive shell here; give a command, e.g. targetcli ls");
        }
        ToolMain.execute(System.out, System.err, stderr -> Targetcli.run(tree, this::sessions, System.out, stderr, words));
    }
}
