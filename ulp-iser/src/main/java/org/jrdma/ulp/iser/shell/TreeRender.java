package org.jrdma.ulp.iser.shell;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code ls} as configshell-fb's {@code _render_tree} draws it without a terminal: 132 columns, {@code o- }
 * nodes, {@code | } margins while siblings follow, dots up to the bracketed summary.
 */
final class TreeRender {
    /** configshell's console width when stdout is not a terminal. */
    static final int WIDTH = 132;

    private TreeRender() {
    }

    /** The tree under {@code root}; {@code depth} levels of children below it (null: all). */
    static String render(TcliNode root, Integer depth) {
        StringBuilder out = new StringBuilder();
        render(root, new ArrayList<>(List.of(false)), depth, out);
        out.setLength(out.length() - 1); // configshell drops the last newline; the caller prints a line
        return out.toString();
    }

    private static void render(TcliNode node, List<Boolean> margin, Integer depth, StringBuilder out) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < margin.size() - 1; i++) {
            line.append(margin.get(i) ? "| " : "  ");
        }
        line.append("o- ");
        String bracket = node.bracket();
        int pad = WIDTH - 1 - (bracket.length() + 3) - line.length() - node.name().length();
        line.append(node.name()).append(' ').append(".".repeat(Math.max(0, pad))).append(" [").append(bracket)
                .append(']');
        out.append(line).append('\n');
        if (depth != null && depth <= 0) {
            return;
        }
        Integer next = depth == null ? null : depth - 1;
        List<TcliNode> children = node.children();
        for (int i = 0; i < children.size(); i++) {
            margin.add(i < children.size() - 1);
            render(children.get(i), margin, next, out);
            margin.remove(margin.size() - 1);
        }
    }
}
