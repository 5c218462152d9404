package org.jrdma.ulp.iser.shell;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One node of targetcli's tree ({@code configshell}'s ConfigNode) as built for one command: its name, what
 * kind of node it is (which commands it has), the model object behind it and the summary {@code ls} prints in
 * brackets. Children are kept in configshell's order (names ending in a number sorted numerically).
 *
 * @param healthy configshell's is_healthy: true/false/null; an empty summary prints as OK, ERROR or ...
 */
record TcliNode(String name, String path, Kind kind, Object model, String summary, Boolean healthy,
                List<TcliNode> children) {

    /** The node kinds of targetcli-fb's UI ({@code ui_root}, {@code ui_backstore}, {@code ui_target}). */
    enum Kind {
        ROOT, BACKSTORES, BACKSTORE, STORAGE_OBJECT, ALUA, ALUA_GROUP, ISCSI, TARGET, TPG, ACLS, ACL, MAPPED_LUN,
        LUNS, LUN, PORTALS, PORTAL
    }

    private static final Pattern TRAILING_NUMBER = Pattern.compile("(.*?)(\\d+)$");

    /** configshell's {@code sorting_keys}: "lun2" before "lun10". */
    static final Comparator<TcliNode> ORDER = Comparator.comparing((TcliNode n) -> key(n.name()).prefix)
            .thenComparing(n -> key(n.name()).number);

    private record Key(String prefix, java.math.BigInteger number) {
    }

    private static Key key(String name) {
        Matcher m = TRAILING_NUMBER.matcher(name);
        return m.matches() ? new Key(m.group(1), new java.math.BigInteger(m.group(2)))
                : new Key(name, java.math.BigInteger.ZERO);
    }

    /** The path of child {@code name} of the node at {@code parent}. */
    static String join(String parent, String name) {
        return (parent.equals("/") ? "" : parent) + "/" + name;
    }

    static TcliNode of(String name, String path, Kind kind, Object model, String summary, Boolean healthy,
                       List<TcliNode> children) {
        List<TcliNode> sorted = new ArrayList<>(children);
        sorted.sort(ORDER);
        return new TcliNode(name, path, kind, model, summary, healthy, Collections.unmodifiableList(sorted));
    }

    Optional<TcliNode> child(String childName) {
        return children.stream().filter(c -> c.name.equals(childName)).findFirst();
    }

    /** The text between the brackets: the summary, or OK / ERROR / ... when it is empty. */
    String bracket() {
        if (!summary.isEmpty()) {
            return summary;
        }
        return healthy == null ? "..." : healthy ? "OK" : "ERROR";
    }
}
