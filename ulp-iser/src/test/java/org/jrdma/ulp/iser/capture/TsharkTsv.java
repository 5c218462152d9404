package org.jrdma.ulp.iser.capture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A capture's {@code .tsv}: one tshark line per frame, the first line naming the fields. */
public final class TsharkTsv {
    private final List<String> columns;
    private final List<String[]> rows;

    private TsharkTsv(List<String> columns, List<String[]> rows) {
        this.columns = columns;
        this.rows = rows;
    }

    public static TsharkTsv read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<String[]> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            rows.add(line.split("\t", -1));
        }
        return new TsharkTsv(Arrays.asList(lines.get(0).split("\t", -1)), rows);
    }

    /** The rows where {@code field} has a value. */
    public List<Row> rowsWith(String field) {
        int c = column(field);
        return rows.stream().filter(r -> c < r.length && !r[c].isEmpty()).map(Row::new).toList();
    }

    private int column(String field) {
        int c = columns.indexOf(field);
        if (c < 0) {
            throw new IllegalArgumentException("no column " + field);
        }
        return c;
    }

    /** One frame's fields. */
    public final class Row {
        private final String[] cells;

        private Row(String[] cells) {
            this.cells = cells;
        }

        public String get(String field) {
            int c = column(field);
            return c < cells.length ? cells[c] : "";
        }

        public int frame() {
            return Integer.parseInt(get("frame.number"));
        }

        /** A hex field ({@code 0x...}) as a long. */
        public long hex(String field) {
            return Long.parseUnsignedLong(get(field).substring(2), 16);
        }

        public int number(String field) {
            return Integer.parseInt(get(field));
        }
    }
}
