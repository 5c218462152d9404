package org.jrdma.launcher;

import java.lang.reflect.Method;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import org.jrdma.ib.core.cli.CommandFailure;

/**
 * How a failed batch command line is reported: the one line printed on stderr and the exit status.
 * <ul>
 * <li>a {@link CommandFailure}, thrown directly or found in the cause chain: its message as is (nothing
 * when it is empty: the tool already said what it had to, as {@code ibv_devinfo -i 0} does), its
 * {@link CommandFailure#exitStatus()};</li>
 * <li>Gogo's "Command not found: xyz": that message as is, status 1;</li>
 * <li>anything else: {@code jrdma: <message>} (the class name when there is no message), status 1.</li>
 * </ul>
 */
record Failure(int status, String message) {

    static final String COMMAND_NOT_FOUND = "Command not found: ";

    static Failure of(Throwable t) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            int status = exitStatusOf(c);
            if (status != 0) {
                String message = c.getMessage();
                return new Failure(status, message == null ? "" : message);
            }
        }
        String message = t.getMessage();
        if (message != null && message.startsWith(COMMAND_NOT_FOUND)) {
            return new Failure(1, message);
        }
        return new Failure(1, "jrdma: " + describe(t));
    }

    /** The exit status of a {@link CommandFailure}, or 0 when {@code t} is none. */
    static int exitStatusOf(Throwable t) {
        if (t instanceof CommandFailure) {
            return ((CommandFailure) t).exitStatus();
        }
        // Tolerate a second copy of the class (e.g. one embedded in another bundle): match by name.
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
            if (CommandFailure.class.getName().equals(c.getName())) {
                try {
                    Method m = c.getMethod("exitStatus");
                    Object v = m.invoke(t);
                    if (v instanceof Integer && (Integer) v != 0) {
                        return (Integer) v;
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // fall through
                }
                return 1;
            }
        }
        return 0;
    }

    static String describe(Throwable t) {
        String message = t.getMessage();
        return message == null || message.isBlank() ? t.getClass().getName() : message;
    }
}
