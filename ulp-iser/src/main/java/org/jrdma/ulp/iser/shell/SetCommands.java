package org.jrdma.ulp.iser.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jrdma.ulp.iser.shell.TcliNode.Kind;
import org.jrdma.ulp.iser.target.ChapAuth;
import org.jrdma.ulp.iser.target.NodeAcl;
import org.jrdma.ulp.iser.target.TargetConfigException;
import org.jrdma.ulp.iser.target.Tpg;
import org.jrdma.ulp.iser.target.TpgAttribute;

/**
 * configshell's {@code set GROUP k=v ...} and {@code get GROUP [k ...]} on a TPG (groups {@code attribute},
 * {@code auth}) and a node ACL (group {@code auth}), with configshell's messages.
 */
final class SetCommands {
    private SetCommands() {
    }

    static final TcliCommand SET = TcliCommand.of("set", SetCommands::set, "group?").withVarKeywords();
    static final TcliCommand GET = TcliCommand.of("get", SetCommands::get, "group?").withVarPositional();

    private static List<String> groups(TcliNode node) {
        return node.kind() == Kind.TPG ? List.of("attribute", "auth") : List.of("auth");
    }

    private static ChapAuth auth(TcliNode node) {
        return node.kind() == Kind.TPG ? ((Tpg) node.model()).auth() : ((NodeAcl) node.model()).auth();
    }

    private static String group(TcliNode node, Map<String, String> p) throws TargetConfigException {
        String group = p.get("group");
        if (group == null) {
            throw new TargetConfigException("AVAILABLE CONFIGURATION GROUPS: " + String.join(" ", groups(node)));
        }
        if (!groups(node).contains(group)) {
            throw new TargetConfigException("Unknown configuration group: " + group);
        }
        return group;
    }

    private static void set(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        String group = group(node, p);
        for (Map.Entry<String, String> e : p.entrySet()) {
            String param = e.getKey();
            if (param.equals("group")) {
                continue;
            }
            String value = group.equals("attribute") ? setAttribute((Tpg) node.model(), param, e.getValue())
                    : setAuth(auth(node), param, e.getValue());
            run.info("Parameter " + param + " is now '" + value + "'.");
        }
    }

    private static String setAttribute(Tpg tpg, String param, String value) throws TargetConfigException {
        if (TpgAttribute.of(param).isEmpty()) {
            throw new TargetConfigException("Unknown parameter " + param + " in group 'attribute'.");
        }
        int n;
        try {
            n = TcliRun.number(value);
        } catch (TargetConfigException x) {
            throw new TargetConfigException("Not setting " + param + "! " + x.getMessage());
        }
        return Integer.toString(tpg.setAttribute(param, n));
    }

    private static String setAuth(ChapAuth auth, String param, String value) throws TargetConfigException {
        ChapAuth.Param a = ChapAuth.Param.of(param)
                .orElseThrow(() -> new TargetConfigException("Unknown parameter " + param + " in group 'auth'."));
        auth.set(a, value);
        return auth.get(a);
    }

    /** {@code get GROUP [k ...]}: {@code k=value} lines, every parameter of the group when none is named. */
    private static void get(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        String group = group(node, p);
        List<String> names = new ArrayList<>();
        if (p.containsKey(TcliCommand.EXTRA)) {
            names.addAll(List.of(p.get(TcliCommand.EXTRA).split(" ")));
        } else {
            if (group.equals("attribute")) {
                for (TpgAttribute a : TpgAttribute.values()) {
                    names.add(a.key());
                }
            } else {
                for (ChapAuth.Param a : ChapAuth.Param.values()) {
                    names.add(a.key());
                }
            }
        }
        for (String name : names) {
            run.info(name + "=" + value(node, group, name));
        }
    }

    private static String value(TcliNode node, String group, String name) throws TargetConfigException {
        if (group.equals("attribute")) {
            TpgAttribute a = TpgAttribute.of(name).orElseThrow(() ->
                    new TargetConfigException("No parameter '" + name + "' in group '" + group + "'."));
            return Integer.toString(((Tpg) node.model()).attribute(a));
        }
        ChapAuth.Param a = ChapAuth.Param.of(name).orElseThrow(() ->
                new TargetConfigException("No parameter '" + name + "' in group '" + group + "'."));
        return auth(node).get(a);
    }
}
