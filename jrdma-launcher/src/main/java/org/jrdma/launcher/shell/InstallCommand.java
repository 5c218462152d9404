package org.jrdma.launcher.shell;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;

/**
 * {@code install [-s|--start] URL...}: Felix Gogo's {@code felix:install} with Karaf's {@code -s}. Gogo's own
 * (gogo.command 1.1.2, {@code Basic.install(CommandSession, String[])}) has no options: {@code -s} is taken
 * as one more URL, fails to install, and the bundle is left Installed. This one is registered under the same
 * name, {@code felix:install}, with a higher service ranking, so Gogo picks it; without {@code -s} it does
 * what Felix's does and prints the same {@code Bundle ID: N}. A failure is an error (exit status 1 in
 * {@code ./jrdma 'CMD'}) naming the URL, not a line of output.
 */
public final class InstallCommand {
    private final BundleContext context;

    private InstallCommand(BundleContext context) {
        this.context = context;
    }

    /** Registers the command; unregister it when the bundle stops. */
    public static ServiceRegistration<?> register(BundleContext context) {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("osgi.command.scope", "felix");
        p.put("osgi.command.function", new String[] { "install" });
        p.put(Constants.SERVICE_RANKING, 10);
        return context.registerService(InstallCommand.class, new InstallCommand(context), p);
    }

    @Descriptor("install bundles from URLs (relative paths from the shell's directory); -s starts them")
    public String install(CommandSession session,
            @Descriptor("start the bundles once installed") @Parameter(names = { "-s", "--start" },
                    presentValue = "true", absentValue = "false") boolean start,
            @Descriptor("target URLs") String... urls) throws BundleException {
        if (urls.length == 0) {
            throw new IllegalArgumentException("install: no URL given");
        }
        List<Bundle> installed = new ArrayList<>();
        for (String url : urls) {
            String location = location(session.currentDir(), url);
            try {
                installed.add(context.installBundle(location));
            } catch (BundleException | SecurityException | IllegalStateException e) {
                throw new BundleException("install: " + location + ": " + e.getMessage(), e);
            }
        }
        if (start) {
            for (Bundle b : installed) {
                try {
                    b.start();
                } catch (BundleException e) {
                    throw new BundleException("install: bundle " + b.getBundleId() + " (" + b.getSymbolicName()
                            + ") installed but not started: " + e.getMessage(), e);
                }
            }
        }
        return ids(installed);
    }

    /** As Felix's {@code Util.resolveUri}: a URL with a scheme as it is, anything else a path from {@code cwd}. */
    static String location(Path cwd, String url) {
        String u = url.trim();
        int colon = u.indexOf(':');
        if (colon > 1 && u.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
            return u;
        }
        Path base = cwd == null ? Path.of("").toAbsolutePath() : cwd;
        return base.resolve(u).normalize().toUri().toString();
    }

    /** Felix's output: {@code Bundle ID: 5}, or {@code Bundle IDs: 5, 6}. */
    static String ids(List<Bundle> bundles) {
        StringBuilder b = new StringBuilder(bundles.size() == 1 ? "Bundle ID: " : "Bundle IDs: ");
        for (int i = 0; i < bundles.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(bundles.get(i).getBundleId());
        }
        return b.toString();
    }
}
