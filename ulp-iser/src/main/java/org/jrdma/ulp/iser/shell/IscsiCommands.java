package org.jrdma.ulp.iser.shell;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.target.IscsiTarget;
import org.jrdma.ulp.iser.target.NetworkPortal;
import org.jrdma.ulp.iser.target.TargetConfigException;
import org.jrdma.ulp.iser.target.Tpg;
import org.jrdma.ulp.iser.target.TpgAttribute;

/**
 * {@code /iscsi}, {@code /iscsi/IQN}, {@code tpgN} enable/disable, {@code portals} and a portal's
 * {@code enable_iser} (ui_target.py).
 */
final class IscsiCommands {
    /** targetcli-fb 2.1.53's default portal (later versions listen on ::0). */
    static final String DEFAULT_PORTAL = "0.0.0.0";

    private IscsiCommands() {
    }

    static final TcliCommand TARGET_CREATE = TcliCommand.of("create", IscsiCommands::createTarget, "wwn?");
    static final TcliCommand TARGET_DELETE = TcliCommand.of("delete", IscsiCommands::deleteTarget, "wwn");
    static final TcliCommand TPG_CREATE = TcliCommand.of("create", IscsiCommands::createTpg, "tag?");
    static final TcliCommand TPG_DELETE = TcliCommand.of("delete", IscsiCommands::deleteTpg, "tag");
    static final TcliCommand ENABLE = TcliCommand.of("enable", (r, n, p) -> enable(r, n, true));
    static final TcliCommand DISABLE = TcliCommand.of("disable", (r, n, p) -> enable(r, n, false));
    static final TcliCommand PORTAL_CREATE = TcliCommand.of("create", IscsiCommands::createPortal,
            "ip_address?", "ip_port?");
    static final TcliCommand PORTAL_DELETE = TcliCommand.of("delete", IscsiCommands::deletePortal,
            "ip_address", "ip_port");
    static final TcliCommand ENABLE_ISER = TcliCommand.of("enable_iser", IscsiCommands::enableIser, "boolean");

    /**
     * {@code /iscsi create IQN}: the target, its tpg1 enabled with authentication=0, and (targetcli-fb's
     * auto_add_default_portal) a 0.0.0.0:3260 portal without iSER, which listens on nothing here.
     */
    private static void createTarget(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        String wwn = p.containsKey("wwn") ? p.get("wwn") : generatedIqn();
        IscsiTarget t = run.tree.createTarget(wwn);
        run.info("Created target " + t.wwn() + ".");
        createTpg(run, t, null);
    }

    /** rtslib's {@code generate_wwn('iqn')}: iqn.2003-01.org.linux-iscsi.HOST.ARCH:sn.SERIAL. */
    private static String generatedIqn() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName().split("\\.")[0];
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        String arch = System.getProperty("os.arch", "").replace("amd64", "x86_64");
        String serial = UUID.randomUUID().toString().substring(24);
        return ("iqn.2003-01.org.linux-iscsi." + host.replace("_", "") + "." + arch.replace("_", "") + ":sn."
                + serial).toLowerCase(Locale.ROOT);
    }

    private static void deleteTarget(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        run.tree.deleteTarget(p.get("wwn"));
        run.info("Deleted Target " + p.get("wwn") + ".");
    }

    private static void createTpg(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        createTpg(run, (IscsiTarget) node.model(), p.containsKey("tag") ? tag(p.get("tag")) : null);
    }

    /**
     * One deviation from targetcli-fb: the TPG starts in demo mode, writable (generate_node_acls=1,
     * demo_mode_write_protect=0, cache_dynamic_acls=1, as the guest's iser-setup.sh sets LIO up), so the
     * issue's one-line setup serves a Linux initiator; {@code set attribute generate_node_acls=0} and ACLs
     * restrict it.
     */
    private static void createTpg(TcliRun run, IscsiTarget t, Integer tag) throws TargetConfigException {
        Tpg tpg = t.createTpg(tag);
        tpg.setAttribute(TpgAttribute.GENERATE_NODE_ACLS.key(), 1);
        tpg.setAttribute(TpgAttribute.DEMO_MODE_WRITE_PROTECT.key(), 0);
        tpg.setAttribute(TpgAttribute.CACHE_DYNAMIC_ACLS.key(), 1);
        tpg.enable(true);
        run.info("Created TPG " + tpg.tag() + ".");
        try {
            tpg.createPortal(DEFAULT_PORTAL, IserTransport.ISCSI_PORT);
            run.info("Global pref auto_add_default_portal=true");
            run.info("Created default portal listening on all IPs (" + DEFAULT_PORTAL + "), port "
                    + IserTransport.ISCSI_PORT + ".");
        } catch (TargetConfigException e) {
            run.info("Default portal not created, TPGs within a target cannot share ip:port.");
        }
    }

    private static int tag(String text) throws TargetConfigException {
        String t = text.startsWith("tpg") ? text.substring(3) : text;
        try {
            return Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new TargetConfigException("Tag argument must be a number.");
        }
    }

    private static void deleteTpg(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        int tag = tag(p.get("tag"));
        ((IscsiTarget) node.model()).deleteTpg(tag);
        run.info("Deleted TPGT " + tag + ".");
    }

    private static void enable(TcliRun run, TcliNode node, boolean on) {
        Tpg tpg = (Tpg) node.model();
        String was = tpg.enabled() == on ? "is already " : "has been ";
        tpg.enable(on);
        run.info("The TPGT " + was + (on ? "enabled." : "disabled."));
    }

    private static void createPortal(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        int port = p.containsKey("ip_port") ? TcliRun.number(p.get("ip_port")) : IserTransport.ISCSI_PORT;
        String ip = p.getOrDefault("ip_address", DEFAULT_PORTAL);
        if (port == IserTransport.ISCSI_PORT) {
            run.info("Using default IP port " + port);
        }
        if (ip.equals(DEFAULT_PORTAL)) {
            run.info("Binding to INADDR_ANY (" + DEFAULT_PORTAL + ")");
        }
        NetworkPortal np = ((Tpg) node.model()).createPortal(canonical(ip), port);
        run.info("Created network portal " + np.name() + ".");
    }

    /** targetcli's {@code _canonicalize_ip}: IPv6 in brackets. */
    private static String canonical(String ip) {
        return ip.contains(".") || ip.startsWith("[") ? ip : "[" + ip + "]";
    }

    private static void deletePortal(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        int port = portNumber(p.get("ip_port"));
        ((Tpg) node.model()).deletePortal(canonical(p.get("ip_address")), port);
        run.info("Deleted network portal " + p.get("ip_address") + ":" + p.get("ip_port"));
    }

    private static int portNumber(String text) throws TargetConfigException {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new TargetConfigException("Invalid port");
        }
    }

    /** The portal node's parent's parent is its TPG. */
    private static void enableIser(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        boolean on = TcliRun.bool(p.get("boolean"), false);
        NetworkPortal np = (NetworkPortal) node.model();
        Tpg tpg = (Tpg) run.node("..", node).model();
        tpg.enableIser(np.ip(), np.port(), on);
        run.info("iSER enable now: " + TcliRun.python(on));
    }
}
