package org.jrdma.ulp.iser.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jrdma.ulp.iser.target.TargetConfigException;

/**
 * One targetcli command of a node kind, with its parameters as targetcli-fb's {@code ui_command_*} method
 * declares them (required, then optional, and whether it takes any {@code key=value} as {@code set} does).
 */
record TcliCommand(String name, List<String> required, List<String> optional, boolean varKeywords,
                   boolean varPositional, Handler handler) {
    /** Where the extra positional words of a {@code varPositional} command are bound, space-separated. */
    static final String EXTRA = "*";

    @FunctionalInterface
    interface Handler {
        void run(TcliRun run, TcliNode node, Map<String, String> params) throws TargetConfigException;
    }

    /** {@code of("create", h, "name", "size", "nullio?")}: a trailing {@code ?} marks an optional parameter. */
    static TcliCommand of(String name, Handler handler, String... params) {
        List<String> required = new ArrayList<>();
        List<String> optional = new ArrayList<>();
        for (String p : params) {
            if (p.endsWith("?")) {
                optional.add(p.substring(0, p.length() - 1));
            } else {
                required.add(p);
            }
        }
        return new TcliCommand(name, List.copyOf(required), List.copyOf(optional), false, false, handler);
    }

    /** A command that also takes any {@code key=value} ({@code set GROUP k=v ...}). */
    TcliCommand withVarKeywords() {
        return new TcliCommand(name, required, optional, true, varPositional, handler);
    }

    /** A command that also takes any number of extra words ({@code get GROUP k ...}). */
    TcliCommand withVarPositional() {
        return new TcliCommand(name, required, optional, varKeywords, true, handler);
    }
}
