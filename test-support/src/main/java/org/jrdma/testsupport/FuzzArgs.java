package org.jrdma.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The argument vector of a command-line fuzz input: the bytes after the control byte (byte 0, which picks the
 * tool) split at NUL, as {@code execve} takes them; Latin-1, so that every byte is one character and the
 * fuzzer reaches every {@code char} below 256.
 */
public final class FuzzArgs {
    private FuzzArgs() {
    }

    /** At most {@code max} arguments; an empty input or a lone control byte is no argument at all. */
    public static String[] split(byte[] data, int max) {
        List<String> args = new ArrayList<>();
        int from = Math.min(1, data.length);
        for (int i = from; i <= data.length && args.size() < max; i++) {
            if (i == data.length || data[i] == 0) {
                if (i > from || i < data.length) {
                    args.add(new String(data, from, i - from, StandardCharsets.ISO_8859_1));
                }
                from = i + 1;
            }
        }
        return args.toArray(String[]::new);
    }

    /** The control byte (0 for an empty input). */
    public static int control(byte[] data) {
        return data.length > 0 ? data[0] & 0xff : 0;
    }
}
