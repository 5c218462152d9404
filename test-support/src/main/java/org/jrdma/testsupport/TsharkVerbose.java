package org.jrdma.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the text of {@code tshark -V} (a capture's {@code NAME.txt}): per frame, the fields of one section (a
 * protocol's tree, e.g. top-level "InfiniBand", or "    CM ConnectRequest" inside it) as "Name" to "value".
 */
public final class TsharkVerbose {
    private static final Pattern FRAME = Pattern.compile("^Frame (\\d+): ");

    private TsharkVerbose() {
    }

    /** One frame's section: its heading line (trimmed; null if the frame has none) and its fields. */
    public static final class Section {
        private String title;
        private final Map<String, String> fields = new LinkedHashMap<>();

        public String title() {
            return title;
        }

        public Map<String, String> fields() {
            return fields;
        }
    }

    /**
     * Every frame of {@code file} (frame number to its section; a frame without one maps to an empty section). A
     * section starts at a heading line indented by exactly {@code indent} spaces that {@code heading} accepts,
     * and ends at the next heading line of that indent. Fields are the deeper lines "Name: value", first
     * occurrence; a bit-field line "..10 .... = Pad Count: 2" gives "Pad Count".
     */
    public static Map<Integer, Section> sections(Path file, int indent, Predicate<String> heading)
            throws IOException {
        Map<Integer, Section> frames = new HashMap<>();
        Section cur = null;
        boolean in = false;
        String pad = " ".repeat(indent);
        for (String line : Files.readAllLines(file)) {
            Matcher m = FRAME.matcher(line);
            if (m.find()) {
                cur = new Section();
                frames.put(Integer.parseInt(m.group(1)), cur);
                in = false;
                continue;
            }
            if (cur == null || line.isEmpty()) {
                continue;
            }
            if (line.startsWith(pad) && !line.startsWith(pad + " ")) {
                in = heading.test(line);
                if (in) {
                    cur.title = line.trim();
                }
                continue;
            }
            if (in) {
                field(cur.fields, line.trim());
            }
        }
        return frames;
    }

    private static void field(Map<String, String> fields, String s) {
        int eq = s.indexOf(" = ");
        if (eq >= 0) {
            s = s.substring(eq + 3);
        }
        int colon = s.indexOf(": ");
        if (colon > 0) {
            fields.putIfAbsent(s.substring(0, colon), s.substring(colon + 2));
        }
    }
}
