package org.jrdma.ulp.iser.target;

/**
 * A configuration change refused, with the words targetcli-fb (rtslib-fb, configshell-fb) uses for it, so
 * the shell prints the message as it is ({@code Storage object ramdisk/rd0 exists}).
 */
public class TargetConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public TargetConfigException(String message) {
        super(message);
    }

    public TargetConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    /** rtslib's lookup of a configfs node that is not there: {@code This Target does not exist in configFS}. */
    static TargetConfigException missing(String kind) {
        return new TargetConfigException("This " + kind + " does not exist in configFS");
    }

    /** {@code node}, or rtslib's "does not exist" error for a {@code kind} when it is null. */
    static <T> T found(T node, String kind) throws TargetConfigException {
        if (node == null) {
            throw missing(kind);
        }
        return node;
    }

    /** rtslib's create of a configfs node that is there already. */
    static TargetConfigException exists(String kind) {
        return new TargetConfigException("This " + kind + " already exists in configFS");
    }
}
