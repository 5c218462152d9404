package org.jrdma.ulp.iser.initiator;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ulp.iser.DiscoveredTarget;
import org.jrdma.ulp.iser.IserInitiator;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.conn.IserConnectionConfig;
import org.jrdma.ulp.iser.conn.RdmaIserTransport;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The initiator as an OSGi service: an {@link IserInitiatorService} over an {@link RdmaIserTransport} of the
 * RDMA CM, configured by PID {@value #PID} (optional: open-iscsi's defaults and a generated InitiatorName).
 */
@Component(configurationPid = IserInitiatorComponent.PID, service = IserInitiator.class)
@Designate(ocd = InitiatorConfig.class)
public class IserInitiatorComponent implements IserInitiator {
    public static final String PID = "org.jrdma.ulp.iser.initiator";
    /** open-iscsi's {@code /etc/iscsi/initiatorname.iscsi}, in the bundle's data area. */
    static final String NAME_FILE = "initiatorname.iscsi";

    @Reference
    RdmaCm cm;

    private RdmaIserTransport transport;
    private IserInitiatorService service;

    @Activate
    void activate(BundleContext context, InitiatorConfig cfg) throws IOException {
        String name = cfg.initiatorName().isEmpty() ? generatedName(context.getDataFile(NAME_FILE))
                : cfg.initiatorName();
        transport = new RdmaIserTransport(cm, IserConnectionConfig.ofQueueDepth(cfg.cmds__max()));
        service = new IserInitiatorService(transport, name);
        service.defaultOptions(options(cfg));
    }

    static IserSessionOptions options(InitiatorConfig cfg) {
        return IserSessionOptions.defaults().withQueue(cfg.cmds__max(), cfg.queue__depth())
                .withTimeouts(Duration.ofSeconds(cfg.replacement__timeout()), Duration.ofSeconds(cfg.login__timeout()),
                        Duration.ofSeconds(cfg.noop__out__interval()), Duration.ofSeconds(cfg.noop__out__timeout()));
    }

    /** The name kept in {@code file} (as iscsi-iname writes it: {@code InitiatorName=...}), made on first use. */
    static String generatedName(java.io.File file) throws IOException {
        if (file == null) {
            return newName();
        }
        Path p = file.toPath();
        if (Files.exists(p)) {
            for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
                if (line.startsWith("InitiatorName=")) {
                    return line.substring("InitiatorName=".length()).trim();
                }
            }
        }
        String name = newName();
        Files.writeString(p, "InitiatorName=" + name + "\n", StandardCharsets.UTF_8);
        return name;
    }

    static String newName() {
        byte[] b = new byte[6];
        new SecureRandom().nextBytes(b);
        return "iqn.2026-12.org.jrdma:01:" + HexFormat.of().formatHex(b);
    }

    @Deactivate
    void deactivate() {
        service.close();
        transport.close();
    }

    @Override
    public String initiatorName() {
        return service.initiatorName();
    }

    @Override
    public CompletionStage<List<DiscoveredTarget>> discover(InetSocketAddress portal) {
        return service.discover(portal);
    }

    @Override
    public CompletionStage<IserSession> login(InetSocketAddress portal, String targetName,
            IserSessionOptions options) {
        return service.login(portal, targetName, options);
    }

    @Override
    public CompletionStage<IserSession> login(InetSocketAddress portal, String targetName) {
        return service.login(portal, targetName);
    }

    @Override
    public List<IserSession> sessions() {
        return service.sessions();
    }
}
