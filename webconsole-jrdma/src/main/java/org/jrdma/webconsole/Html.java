package org.jrdma.webconsole;

import java.util.List;

/** An HTML fragment under construction: text is always escaped, markup only comes from this class's callers. */
final class Html {
    private final StringBuilder out = new StringBuilder(4096);

    static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** Raw markup (never user or device data). */
    Html raw(String markup) {
        out.append(markup);
        return this;
    }

    Html text(Object value) {
        out.append(escape(value == null ? "" : value.toString()));
        return this;
    }

    /** {@code <h2>} of a section, with the id the page's tests and links use. */
    Html heading(String id, String title) {
        return raw("<h2 id=\"").text(id).raw("\">").text(title).raw("</h2>\n");
    }

    /** {@code <table class="tablesorter nicetable">} (the console's own table style) with this header row. */
    Html table(String id, List<String> headers) {
        raw("<table id=\"").text(id).raw("\" class=\"tablesorter nicetable\"><thead><tr>");
        for (String h : headers) {
            raw("<th>").text(h).raw("</th>");
        }
        return raw("</tr></thead><tbody>\n");
    }

    Html endTable() {
        return raw("</tbody></table>\n");
    }

    /** One row of escaped cells. */
    Html row(List<?> cells) {
        raw("<tr>");
        for (Object c : cells) {
            cell(c);
        }
        return raw("</tr>\n");
    }

    Html cell(Object value) {
        return raw("<td>").text(value).raw("</td>");
    }

    /** A note in place of a table: "no devices", "no interfaces". */
    Html note(String text) {
        return raw("<p class=\"statline\">").text(text).raw("</p>\n");
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
