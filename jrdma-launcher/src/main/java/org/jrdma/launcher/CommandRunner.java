package org.jrdma.launcher;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.framework.BundleContext;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Runs Gogo command lines the way batch mode always has: a session set up as the interactive login shell's
 * gosh_profile does, a non-null result printed as Gogo prints it, a failure reported as one line on stderr and
 * an exit status ({@link Failure}). One runner holds one session, so the lines of an interactive attached
 * client share their variables. The caller owns the streams.
 */
final class CommandRunner implements AutoCloseable {

    private final ServiceTracker<CommandProcessor, CommandProcessor> tracker;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean trace;
    private final InputStream in;
    private CommandSession session;

    CommandRunner(BundleContext context, InputStream in, PrintStream out, PrintStream err, boolean trace) {
        this.tracker = new ServiceTracker<>(context, CommandProcessor.class, null);
        this.out = out;
        this.err = err;
        this.trace = trace;
        this.in = in;
        tracker.open();
    }

    /** Runs one command line; returns its exit status. */
    int run(String line) throws InterruptedException {
        if (session == null) {
            CommandProcessor processor = tracker.waitForService(5000);
            if (processor == null) {
                err.println("jrdma: the Gogo command processor is not available");
                return 1;
            }
            // Like the Gogo shell: the given stdio, never System.in/out/err, which Gogo replaces by its
            // per-thread multiplexers (a session writing into them would loop back into itself).
            session = processor.createSession(in, out, err);
            prepare(session);
        }
        try {
            Object result;
            try {
                result = session.execute(line);
            } catch (Throwable t) {
                return failure(t);
            }
            if (result != null) {
                out.println(session.format(result, Converter.INSPECT));
            }
            return 0;
        } finally {
            flush(out, err);
        }
    }

    /** What the interactive login shell's gosh_profile sets up, so that batch commands see the same names. */
    private static void prepare(CommandSession session) {
        session.put("SCOPE", "gogo:*");
        for (String setup : new String[] {
            "addcommand context ${.context}",
            "addcommand system (((${.context} bundles) 0) loadclass java.lang.System)" }) {
            try {
                session.execute(setup);
            } catch (Exception e) {
                // optional conveniences only
            }
        }
    }

    private int failure(Throwable t) {
        Failure failure = Failure.of(t);
        if (!failure.message().isEmpty()) {
            err.println(failure.message());
        }
        if (trace) {
            t.printStackTrace(err);
        }
        return failure.status();
    }

    @Override
    public void close() {
        if (session != null) {
            session.close();
            session = null;
        }
        try {
            tracker.close();
        } catch (IllegalStateException e) {
            // the framework is stopping (e.g. the command was 'stop 0')
        }
    }

    static void flush(OutputStream... streams) {
        for (OutputStream s : streams) {
            try {
                s.flush();
            } catch (Exception e) {
                // ignore
            }
        }
        System.out.flush();
        System.err.flush();
    }
}
