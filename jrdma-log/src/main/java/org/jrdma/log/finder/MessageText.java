package org.jrdma.log.finder;

import java.text.MessageFormat;
import java.util.ResourceBundle;

/** The text of a System.Logger record, as the JDK's loggers make it: localized, MessageFormat with parameters. */
public final class MessageText {

    private MessageText() {
    }

    public static String localized(ResourceBundle bundle, String msg) {
        return bundle != null && msg != null && bundle.containsKey(msg) ? bundle.getString(msg) : msg;
    }

    /** MessageFormat only when there are parameters, so a lone "{0}" or quote is left as written. */
    public static String format(ResourceBundle bundle, String format, Object... params) {
        String f = localized(bundle, format);
        return params == null || params.length == 0 || f == null ? f : MessageFormat.format(f, params);
    }
}
