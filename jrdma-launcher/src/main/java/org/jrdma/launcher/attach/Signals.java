package org.jrdma.launcher.attach;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * POSIX signal handlers through {@code sun.misc.Signal} (module jdk.unsupported), reached by reflection from
 * the system class loader so that a bundle need not import {@code sun.misc}. Replacing the JVM's handler of
 * TERM or INT also replaces its default action (shutdown hooks, exit 143/130): the handler decides.
 */
public final class Signals {

    private Signals() {
    }

    /**
     * Runs {@code action} on the JVM's signal thread whenever signal {@code name} (TERM, INT, ...) arrives.
     *
     * @return the previous handler (an opaque object for {@link #restore}), or {@code null} when signals
     *         cannot be handled here
     */
    public static Object handle(String name, Runnable action) {
        try {
            ClassLoader system = ClassLoader.getSystemClassLoader();
            Class<?> handler = Class.forName("sun.misc.SignalHandler", true, system);
            InvocationHandler h = (proxy, method, args) -> invoke(proxy, method, args, action);
            return install(name, Proxy.newProxyInstance(system, new Class<?>[] { handler }, h));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Puts back a handler that {@link #handle} returned. */
    public static void restore(String name, Object previous) {
        if (previous == null) {
            return;
        }
        try {
            install(name, previous);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // the JVM is going away
        }
    }

    /** {@code Signal.handle(new Signal(name), handler)}; returns the previous handler. */
    private static Object install(String name, Object handler) throws ReflectiveOperationException {
        ClassLoader system = ClassLoader.getSystemClassLoader();
        Class<?> signal = Class.forName("sun.misc.Signal", true, system);
        Class<?> handlerType = Class.forName("sun.misc.SignalHandler", true, system);
        Object sig = signal.getConstructor(String.class).newInstance(name);
        return signal.getMethod("handle", signal, handlerType).invoke(null, sig, handler);
    }

    private static Object invoke(Object proxy, Method method, Object[] args, Runnable action) {
        switch (method.getName()) {
            case "handle":
                action.run();
                return null;
            case "hashCode":
                return System.identityHashCode(proxy);
            case "equals":
                return proxy == args[0];
            case "toString":
                return "jrdma signal handler";
            default:
                return null;
        }
    }
}
