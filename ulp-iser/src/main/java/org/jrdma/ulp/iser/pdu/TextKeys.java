package org.jrdma.ulp.iser.pdu;

import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The data segment of Login and Text PDUs (RFC 7143 section 6): {@code key=value} pairs, each ended by a NUL, in
 * the order sent. Keys may repeat (a SendTargets answer repeats TargetName and TargetAddress). The caller joins
 * the data segments of a C=1 sequence before decoding.
 */
public final class TextKeys {
    /** RFC 7143 section 6.1: values up to 255 bytes, except those a key allows longer (CHAP, 8192 at most). */
    static final int MAX_VALUE = 8192;

    private final List<TextKey> keys;

    public TextKeys(List<TextKey> keys) {
        this.keys = List.copyOf(keys);
    }

    public static TextKeys of(String... keyValues) {
        List<TextKey> keys = new ArrayList<>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            keys.add(new TextKey(keyValues[i], keyValues[i + 1]));
        }
        return new TextKeys(keys);
    }

    public List<TextKey> keys() {
        return keys;
    }

    /** The first value of {@code key}. */
    public Optional<String> get(String key) {
        return keys.stream().filter(k -> k.key().equals(key)).map(TextKey::value).findFirst();
    }

    /** Every value of {@code key}, in order. */
    public List<String> all(String key) {
        return keys.stream().filter(k -> k.key().equals(key)).map(TextKey::value).toList();
    }

    public static TextKeys decode(byte[] data) throws IscsiProtocolException {
        List<TextKey> keys = new ArrayList<>();
        int start = 0;
        while (start < data.length) {
            int end = start;
            while (end < data.length && data[end] != 0) {
                end++;
            }
            if (end == data.length) {
                throw IscsiProtocolException.field("text key at byte " + start + " not ended by a NUL");
            }
            keys.add(pair(data, start, end));
            start = end + 1;
        }
        return new TextKeys(keys);
    }

    private static TextKey pair(byte[] data, int start, int end) throws IscsiProtocolException {
        int eq = start;
        while (eq < end && data[eq] != '=') {
            eq++;
        }
        if (eq == end) {
            throw IscsiProtocolException.field("text key at byte " + start + " without '='");
        }
        String key = new String(data, start, eq - start, StandardCharsets.US_ASCII);
        String bad = TextKey.checkKey(key);
        if (bad != null) {
            throw IscsiProtocolException.field(bad);
        }
        if (end - eq - 1 > MAX_VALUE) {
            throw IscsiProtocolException.field("value of " + key + " of " + (end - eq - 1) + " bytes");
        }
        try {
            String value = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(data, eq + 1, end - eq - 1)).toString();
            return new TextKey(key, value);
        } catch (CharacterCodingException e) {
            throw IscsiProtocolException.field("value of " + key + " is not UTF-8");
        }
    }

    public byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (TextKey k : keys) {
            out.writeBytes(k.toString().getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        return out.toByteArray();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TextKeys other && keys.equals(other.keys);
    }

    @Override
    public int hashCode() {
        return keys.hashCode();
    }

    @Override
    public String toString() {
        return keys.toString();
    }
}
