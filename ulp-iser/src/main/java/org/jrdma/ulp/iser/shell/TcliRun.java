package org.jrdma.ulp.iser.shell;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.jrdma.ulp.iser.target.SessionInfo;
import org.jrdma.ulp.iser.target.TargetConfigException;
import org.jrdma.ulp.iser.target.TargetTree;

/**
 * What a command runs with: the configuration, the node tree as it was when the command started, and where
 * targetcli's info messages go. Also configshell's path lookup and parameter types.
 */
final class TcliRun {
    final TargetTree tree;
    final TcliNode root;
    private final PrintStream out;
    private final Supplier<List<SessionInfo>> sessions;

    TcliRun(TargetTree tree, TcliNode root, PrintStream out, Supplier<List<SessionInfo>> sessions) {
        this.tree = tree;
        this.root = root;
        this.out = out;
        this.sessions = sessions;
    }

    /** The runtime's sessions now (none without a runtime). */
    List<SessionInfo> sessions() {
        return sessions.get();
    }

    /** targetcli's {@code shell.log.info}: one line on stdout. */
    void info(String line) {
        out.println(line);
    }

    /** configshell's {@code get_node}: absolute from the root, else relative to {@code from}; {@code ..}/{@code .}. */
    TcliNode node(String path, TcliNode from) throws TargetConfigException {
        String p = path == null || path.isEmpty() ? "." : path.replaceAll("/+", "/");
        if (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        TcliNode at = p.startsWith("/") ? root : from;
        for (String name : p.split("/")) {
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                at = parent(at);
                continue;
            }
            TcliNode here = at;
            at = here.child(name).orElseThrow(() -> new TargetConfigException("No such path "
                    + (here.path().equals("/") ? "" : here.path()) + "/" + name));
        }
        return at;
    }

    private TcliNode parent(TcliNode n) throws TargetConfigException {
        if (n.path().equals("/")) {
            return n;
        }
        String parentPath = n.path().substring(0, n.path().lastIndexOf('/'));
        return node(parentPath.isEmpty() ? "/" : parentPath, root);
    }

    /** configshell's bool type: true/false in any case; null: the default. */
    static boolean bool(String value, boolean dflt) throws TargetConfigException {
        if (value == null) {
            return dflt;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new TargetConfigException("Syntax error, '" + value + "' is not true|false.");
        };
    }

    /** configshell's number type. */
    static int number(String value) throws TargetConfigException {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new TargetConfigException("Syntax error, '" + value + "' is not a NUMBER.");
        }
    }

    /** Python's {@code str(bool)}, as targetcli prints it ("iSER enable now: True"). */
    static String python(boolean b) {
        return b ? "True" : "False";
    }
}
