package org.jrdma.launcher;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Properties;

import org.apache.felix.fileinstall.ArtifactInstaller;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

/**
 * etc/{@code PID~NAME.cfg}: the OSGi R7 name of a factory configuration (what
 * {@code ConfigurationAdmin.getFactoryConfiguration(PID, NAME)} creates, PID {@code PID~NAME}). FileInstall
 * 3.7.4 knows only its own {@code PID-NAME.cfg} and would make a plain configuration of PID {@code PID~NAME}
 * that no factory component sees; this installer, ranked before FileInstall's own, takes these files:
 * created and updated (only when the properties differ) from the file, deleted with it. Values are strings,
 * as in FileInstall's {@code .cfg}; DS converts them to the component's types.
 * <p>
 * It also takes {@code org.osgi.service.log.admin|BSN.cfg}, the Log Admin PID of one bundle's logger context:
 * FileInstall would split a BSN such as {@code hw-rxe} at its '-' into a factory PID and a name.
 */
final class FactoryConfigFiles implements ArtifactInstaller {

    /** Ahead of FileInstall's ConfigInstaller (ranking 0), which would take any .cfg. */
    static final int RANKING = 100;
    /** The file a configuration came from: FileInstall's property (a file: URL), and ours (a path). */
    static final String FILEINSTALL_FILENAME = "felix.fileinstall.filename";
    static final String ETC_FILE = "jrdma.etc.file";
    /** OSGi R7 Log Admin: the root logger context's PID; {@code PID|BSN} is one bundle's. */
    static final String LOG_ADMIN_PID = "org.osgi.service.log.admin";

    private final ServiceTracker<ConfigurationAdmin, ConfigurationAdmin> cm;
    private final ServiceRegistration<ArtifactInstaller> registration;

    private FactoryConfigFiles(BundleContext context) {
        cm = new ServiceTracker<>(context, ConfigurationAdmin.class, null);
        cm.open();
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(Constants.SERVICE_RANKING, RANKING);
        registration = context.registerService(ArtifactInstaller.class, this, props);
    }

    /** Registers the installer; {@code null} when FileInstall or ConfigAdmin are not there. */
    static AutoCloseable register(BundleContext context) {
        try {
            FactoryConfigFiles f = new FactoryConfigFiles(context);
            f.forgetRemovedFiles();
            return f::close;
        } catch (LinkageError | RuntimeException e) {
            System.err.println("jrdma: etc/PID~NAME.cfg files are not read (" + e + ")");
            return null;
        }
    }

    private void close() {
        try {
            registration.unregister();
        } catch (IllegalStateException e) {
            // already gone with the bundle
        }
        cm.close();
    }

    /**
     * Deletes the configurations whose etc/ file was removed while the container was down. FileInstall does
     * that only when it writes configurations back to their files, which the container turns off; this runs
     * before FileInstall starts (start level 21).
     */
    private void forgetRemovedFiles() {
        ConfigurationAdmin a = cm.getService();
        if (a == null) {
            return;
        }
        try {
            Configuration[] all = a.listConfigurations("(|(" + FILEINSTALL_FILENAME + "=*)(" + ETC_FILE + "=*))");
            for (Configuration c : all == null ? new Configuration[0] : all) {
                File f = sourceOf(c.getProperties());
                if (f != null && !f.exists()) {
                    String pid = c.getPid();
                    c.delete();
                    System.err.println("jrdma: deleted configuration " + pid + " (" + f + " was removed)");
                }
            }
        } catch (IOException | InvalidSyntaxException | RuntimeException e) {
            System.err.println("jrdma: cannot check etc/ configurations: " + e);
        }
    }

    /** The etc/ file a configuration came from, or {@code null}. */
    static File sourceOf(Dictionary<String, Object> props) {
        if (props == null) {
            return null;
        }
        Object ours = props.get(ETC_FILE);
        if (ours != null) {
            return new File(ours.toString());
        }
        Object theirs = props.get(FILEINSTALL_FILENAME);
        if (theirs == null) {
            return null;
        }
        try {
            return new File(java.net.URI.create(theirs.toString()));
        } catch (IllegalArgumentException e) {
            return new File(theirs.toString()); // older FileInstall versions kept a path
        }
    }

    /**
     * {@code [factoryPid, name]} of a {@code PID~NAME.cfg} file name, {@code [pid, null]} of a Log Admin
     * {@code org.osgi.service.log.admin|BSN.cfg}, or {@code null}.
     */
    static String[] parse(String fileName) {
        if (!fileName.endsWith(".cfg")) {
            return null;
        }
        String base = fileName.substring(0, fileName.length() - ".cfg".length());
        if (base.startsWith(LOG_ADMIN_PID + "|") && base.length() > LOG_ADMIN_PID.length() + 1) {
            return new String[] { base, null };
        }
        int tilde = base.indexOf('~');
        if (tilde <= 0 || tilde == base.length() - 1) {
            return null;
        }
        return new String[] { base.substring(0, tilde), base.substring(tilde + 1) };
    }

    @Override
    public boolean canHandle(File artifact) {
        return parse(artifact.getName()) != null;
    }

    @Override
    public void install(File artifact) throws Exception {
        update(artifact);
    }

    @Override
    public void update(File artifact) throws Exception {
        String[] pid = parse(artifact.getName());
        Configuration c = pid[1] == null ? admin().getConfiguration(pid[0], "?")
                : admin().getFactoryConfiguration(pid[0], pid[1], "?");
        Dictionary<String, Object> props = read(artifact);
        props.put(ETC_FILE, artifact.getAbsolutePath());
        c.updateIfDifferent(props);
        System.err.println("jrdma: configuration " + c.getPid() + " from " + artifact);
    }

    @Override
    public void uninstall(File artifact) throws Exception {
        String[] pid = parse(artifact.getName());
        Configuration[] found = existing(pid[1] == null ? pid[0] : pid[0] + "~" + pid[1]);
        if (found != null) {
            for (Configuration c : found) {
                String removed = c.getPid();
                c.delete();
                System.err.println("jrdma: deleted configuration " + removed + " (" + artifact + " removed)");
            }
        }
    }

    private Configuration[] existing(String pid) throws IOException, InvalidSyntaxException {
        return admin().listConfigurations("(" + Constants.SERVICE_PID + "=" + pid.replaceAll("([\\\\()*])", "\\\\$1") + ")");
    }

    private ConfigurationAdmin admin() throws IOException {
        ConfigurationAdmin a = cm.getService();
        if (a == null) {
            throw new IOException("ConfigurationAdmin is not available");
        }
        return a;
    }

    static Dictionary<String, Object> read(File artifact) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(artifact.toPath())) {
            p.load(in);
        }
        Hashtable<String, Object> d = new Hashtable<>();
        for (String k : p.stringPropertyNames()) {
            d.put(k, p.getProperty(k).trim());
        }
        return d;
    }
}
