package org.jrdma.ulp.iser.shell;

import java.io.PrintStream;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jrdma.ulp.iser.shell.TcliNode.Kind;
import org.jrdma.ulp.iser.target.SessionInfo;
import org.jrdma.ulp.iser.target.StorageObject;
import org.jrdma.ulp.iser.target.TargetConfigException;
import org.jrdma.ulp.iser.target.TargetTree;

/**
 * targetcli-fb run with its arguments ({@code targetcli [PATH] COMMAND [ARGS]}): one command line, info
 * messages on stdout, an error as targetcli words it on stderr and exit status 1. The whole command is one
 * {@link TargetTree#edit}, so it sees and changes the tree atomically.
 */
public final class Targetcli {
    /** The commands of each node kind (every node also has {@code ls}). */
    private static final Map<Kind, List<TcliCommand>> COMMANDS = new EnumMap<>(Kind.class);
    static final TcliCommand LS = TcliCommand.of("ls", Targetcli::ls, "path?", "depth?");

    static {
        COMMANDS.put(Kind.ROOT, List.of(BackstoreCommands.CLEARCONFIG, SessionsCommand.SESSIONS));
        COMMANDS.put(Kind.ISCSI, List.of(IscsiCommands.TARGET_CREATE, IscsiCommands.TARGET_DELETE));
        COMMANDS.put(Kind.TARGET, List.of(IscsiCommands.TPG_CREATE, IscsiCommands.TPG_DELETE));
        COMMANDS.put(Kind.TPG, List.of(IscsiCommands.ENABLE, IscsiCommands.DISABLE, SetCommands.SET, SetCommands.GET));
        COMMANDS.put(Kind.PORTALS, List.of(IscsiCommands.PORTAL_CREATE, IscsiCommands.PORTAL_DELETE));
        COMMANDS.put(Kind.PORTAL, List.of(IscsiCommands.ENABLE_ISER));
        COMMANDS.put(Kind.LUNS, List.of(TpgCommands.LUN_CREATE, TpgCommands.LUN_DELETE));
        COMMANDS.put(Kind.ACLS, List.of(TpgCommands.ACL_CREATE, TpgCommands.ACL_DELETE));
        COMMANDS.put(Kind.ACL, List.of(TpgCommands.MAPPED_CREATE, TpgCommands.MAPPED_DELETE, SetCommands.SET,
                SetCommands.GET));
    }

    private Targetcli() {
    }

    /** Runs one command line without a runtime (no sessions); returns the exit status. */
    public static int run(TargetTree tree, PrintStream out, StringBuilder err, String... words) {
        return run(tree, List::of, out, err, words);
    }

    /**
     * Runs one command line; returns the exit status (0, or 1 with the error on {@code err}).
     *
     * @param sessions the runtime's sessions, for {@code sessions}
     */
    public static int run(TargetTree tree, Supplier<List<SessionInfo>> sessions, PrintStream out, StringBuilder err,
                          String... words) {
        try {
            tree.edit(() -> {
                execute(tree, sessions, out, words);
                return null;
            });
            return 0;
        } catch (TargetConfigException e) {
            err.append(e.getMessage()).append('\n');
            return 1;
        }
    }

    private static void execute(TargetTree tree, Supplier<List<SessionInfo>> sessions, PrintStream out,
                                String[] words) throws TargetConfigException {
        TcliArgs args = TcliArgs.parse(words);
        TcliRun run = new TcliRun(tree, TcliTree.build(tree), out, sessions);
        TcliNode node = run.node(args.path() == null ? "/" : args.path(), run.root);
        if (args.command() == null) {
            return; // a path alone is "cd PATH": nothing to do in a one-shot run
        }
        TcliCommand c = commands(node).get(args.command());
        if (c == null) {
            throw new TargetConfigException("Command not found " + args.command());
        }
        c.handler().run(run, node, args.bind(c));
    }

    private static Map<String, TcliCommand> commands(TcliNode node) {
        Map<String, TcliCommand> m = new LinkedHashMap<>();
        m.put(LS.name(), LS);
        List<TcliCommand> own = node.kind() == Kind.BACKSTORE
                ? List.of(StorageObject.RAMDISK.equals(node.model()) ? BackstoreCommands.RAMDISK_CREATE
                        : BackstoreCommands.FILEIO_CREATE, BackstoreCommands.DELETE)
                : COMMANDS.getOrDefault(node.kind(), List.of());
        own.forEach(c -> m.put(c.name(), c));
        return m;
    }

    /** {@code ls [PATH] [DEPTH]}: the tree as configshell draws it; depth 0 = all. */
    private static void ls(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        TcliNode at = run.node(p.get("path"), node);
        Integer depth = null;
        if (p.containsKey("depth")) {
            try {
                int d = Integer.parseInt(p.get("depth"));
                depth = d == 0 ? null : d;
            } catch (NumberFormatException e) {
                throw new TargetConfigException("The tree depth must be a number.");
            }
        }
        run.info(TreeRender.render(at, depth));
    }
}
