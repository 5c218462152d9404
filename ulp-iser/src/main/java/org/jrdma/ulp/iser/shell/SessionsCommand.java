package org.jrdma.ulp.iser.shell;

import org.jrdma.ulp.iser.conn.InetText;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.jrdma.ulp.iser.target.IscsiTarget;
import org.jrdma.ulp.iser.target.SessionInfo;
import org.jrdma.ulp.iser.target.TargetConfigException;
import org.jrdma.ulp.iser.target.Tpg;
import org.jrdma.ulp.iser.target.TpgLun;

/**
 * The root's {@code sessions [list|detail] [sid]} (ui_root.py): normal sessions of the runtime by TSIH (LIO's
 * sid), with the initiator's LUNs and connections in detail. The alias is the InitiatorName (the runtime does
 * not keep InitiatorAlias); connection ids are numbered in order.
 */
final class SessionsCommand {
    private static final String INDENT = "    ";

    private SessionsCommand() {
    }

    static final TcliCommand SESSIONS = TcliCommand.of("sessions", SessionsCommand::sessions, "action?", "sid?");

    private static void sessions(TcliRun run, TcliNode node, Map<String, String> p) throws TargetConfigException {
        String action = p.getOrDefault("action", "list");
        if (!action.equals("list") && !action.equals("detail")) {
            throw new TargetConfigException("action must be one of: list, detail");
        }
        Integer sid = null;
        if (p.containsKey("sid")) {
            try {
                sid = Integer.parseInt(p.get("sid"));
            } catch (NumberFormatException e) {
                throw new TargetConfigException("sid must be a number, '" + p.get("sid") + "' given");
            }
        }
        Integer wanted = sid;
        List<SessionInfo> shown = run.sessions().stream().filter(s -> !s.discovery())
                .filter(s -> wanted == null || s.tsih() == wanted).toList();
        if (shown.isEmpty()) {
            if (sid != null) {
                throw new TargetConfigException("no session found with sid " + sid);
            }
            run.info("(no open sessions)");
            return;
        }
        for (SessionInfo s : shown) {
            run.info("alias: " + s.initiatorName() + "\tsid: " + s.tsih() + " type: Normal session-state: LOGGED_IN");
            if (action.equals("detail")) {
                detail(run, s);
            }
        }
    }

    private static void detail(TcliRun run, SessionInfo s) {
        run.info(INDENT + "name: " + s.initiatorName());
        IscsiTarget t = run.tree.targets().get(s.targetName());
        Tpg tpg = t == null ? null : t.tpgs().values().stream().filter(g -> g.allows(s.initiatorName())).findFirst()
                .orElse(null);
        if (tpg != null) {
            for (Map.Entry<Integer, TpgLun> e : tpg.visibleLuns(s.initiatorName()).entrySet()) {
                TpgLun l = e.getValue();
                run.info(INDENT + "mapped-lun: " + e.getKey() + " backstore: " + l.storage().path() + " mode: "
                        + (l.readOnly() ? "r" : "rw"));
            }
        }
        int cid = 0;
        for (InetSocketAddress a : s.remoteAddresses()) {
            run.info(INDENT + "address: " + InetText.host(a.getAddress(), false) + " (iSER)  cid: " + cid++
                    + " connection-state: LOGGED_IN");
        }
    }
}
