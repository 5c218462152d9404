package org.jrdma.ulp.iser.shell;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jrdma.ulp.iser.target.TargetConfigException;

/**
 * A targetcli command line as configshell-fb parses it: an optional path (a word with a {@code /}, or
 * {@code .}/{@code ..}), a command, positional parameters and {@code key=value} parameters; and the binding of
 * those to a command's declared parameters with configshell's {@code assert_params} errors.
 */
record TcliArgs(String path, String command, List<String> positional, Map<String, String> keywords) {
    private static final Pattern PATH = Pattern.compile("([A-Za-z0-9:_.\\[\\]-])*/([A-Za-z0-9:_.\\[\\]/-])*|\\.\\.|\\.");
    private static final Pattern KEYWORD = Pattern.compile("([A-Za-z0-9_]+)=(.*)", Pattern.DOTALL);

    static TcliArgs parse(String[] words) {
        int i = 0;
        String path = null;
        if (i < words.length && PATH.matcher(words[i]).matches()) {
            path = words[i++];
        }
        String command = i < words.length ? words[i++] : null;
        List<String> positional = new ArrayList<>();
        Map<String, String> keywords = new LinkedHashMap<>();
        for (; i < words.length; i++) {
            var m = KEYWORD.matcher(words[i]);
            if (m.matches()) {
                keywords.put(m.group(1), m.group(2));
            } else {
                positional.add(words[i]);
            }
        }
        return new TcliArgs(path, command, List.copyOf(positional), Collections.unmodifiableMap(keywords));
    }

    /**
     * The parameters by name for a command declaring required then optional names (with varKeywords, any other
     * {@code key=value} under its own key; with varPositional, extra words under {@link TcliCommand#EXTRA}).
     * Unset optional parameters are absent.
     */
    Map<String, String> bind(TcliCommand c) throws TargetConfigException {
        List<String> required = c.required();
        List<String> optional = c.optional();
        boolean varKeywords = c.varKeywords();
        List<String> args = new ArrayList<>(required);
        args.addAll(optional);
        TreeSet<String> unexpected = new TreeSet<>(keywords.keySet());
        unexpected.removeAll(args);
        TreeSet<String> missing = new TreeSet<>(args.subList(Math.min(positional.size(), args.size()), args.size()));
        missing.removeAll(optional);
        missing.removeAll(keywords.keySet());
        if (missing.size() == 1) {
            throw new TargetConfigException("Missing required parameter " + missing.first());
        }
        if (!missing.isEmpty()) {
            throw new TargetConfigException("Missing required parameters " + quoted(missing));
        }
        if (!varKeywords && unexpected.size() == 1) {
            throw new TargetConfigException("Unexpected keyword parameter '" + unexpected.first() + "'.");
        }
        if (!varKeywords && !unexpected.isEmpty()) {
            throw new TargetConfigException("Unexpected keyword parameters " + quoted(unexpected) + ".");
        }
        List<String> named = new ArrayList<>(args.subList(0, Math.min(positional.size(), args.size())));
        for (String k : keywords.keySet()) {
            if (named.contains(k)) {
                throw new TargetConfigException("Duplicate parameter " + k + ".");
            }
            named.add(k);
        }
        int standard = positional.size() + (int) keywords.keySet().stream().filter(args::contains).count();
        if (optional.isEmpty() && standard != required.size() && !c.varPositional()) {
            throw new TargetConfigException("Got " + standard + " positionnal parameters, expected exactly "
                    + required.size() + ".");
        }
        if (standard > args.size() && !c.varPositional()) {
            throw new TargetConfigException("Got " + standard + " positionnal parameters, expected at most "
                    + args.size() + ".");
        }
        Map<String, String> bound = new LinkedHashMap<>();
        for (int i = 0; i < Math.min(positional.size(), args.size()); i++) {
            bound.put(args.get(i), positional.get(i));
        }
        if (positional.size() > args.size()) {
            bound.put(TcliCommand.EXTRA, String.join(" ", positional.subList(args.size(), positional.size())));
        }
        bound.putAll(keywords);
        return bound;
    }

    private static String quoted(TreeSet<String> names) {
        return String.join(", ", names.stream().map(n -> "'" + n + "'").toList());
    }
}
