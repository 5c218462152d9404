package org.jrdma.ulp.iser.shell;

import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.ToolMain;
import org.jrdma.ib.core.cli.ToolRuns;
import org.jrdma.ulp.iser.target.TargetTree;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

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

    public void targetcli(String... args) {
        String[] words = ToolRuns.words(args);
        if (words.length == 0) {
            throw new CommandFailure(1, "targetcli: no interactive shell here; give a command, e.g. targetcli ls");
        }
        ToolMain.execute(System.out, System.err, stderr -> Targetcli.run(tree, System.out, stderr, words));
    }
}
