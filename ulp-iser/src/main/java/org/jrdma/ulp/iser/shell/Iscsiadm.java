package org.jrdma.ulp.iser.shell;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.core.cli.Getopt.LongOption;
import org.jrdma.ulp.iser.DiscoveredTarget;
import org.jrdma.ulp.iser.IserInitiator;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.initiator.LoginFailedException;
import org.jrdma.ulp.iser.initiator.SessionExistsException;

/**
 * open-iscsi's {@code iscsiadm} for the iSER initiator: {@code -m discovery -t st -p IP[:PORT]},
 * {@code -m node -T IQN -p IP[:PORT] --login|--logout}, {@code -m session [-r SID -u]}. Output lines, error
 * words and exit codes are open-iscsi's ({@code iscsi_err.h}). There is no node database: a login names its
 * target and portal.
 */
public final class Iscsiadm {
    static final int ISCSI_ERR = 1;
    static final int ISCSI_ERR_INVAL = 7;
    static final int ISCSI_ERR_LOGOUT = 10;
    static final int ISCSI_ERR_SESS_EXISTS = 15;
    static final int ISCSI_ERR_NO_OBJS_FOUND = 21;
    private static final long WAIT_SECONDS = 180;
    private static final LongOption[] LONG = {
        new LongOption("mode", Getopt.REQUIRED_ARGUMENT, 'm'),
        new LongOption("type", Getopt.REQUIRED_ARGUMENT, 't'),
        new LongOption("portal", Getopt.REQUIRED_ARGUMENT, 'p'),
        new LongOption("targetname", Getopt.REQUIRED_ARGUMENT, 'T'),
        new LongOption("interface", Getopt.REQUIRED_ARGUMENT, 'I'),
        new LongOption("sid", Getopt.REQUIRED_ARGUMENT, 'r'),
        new LongOption("login", Getopt.NO_ARGUMENT, 'l'),
        new LongOption("logout", Getopt.NO_ARGUMENT, 'u'),
    };

    private final IserInitiator initiator;
    private final PrintStream out;
    private final StringBuilder err;
    private String mode;
    private String type;
    private String portal;
    private String target;
    private String sid;
    private boolean login;
    private boolean logout;

    public Iscsiadm(IserInitiator initiator, PrintStream out, StringBuilder err) {
        this.initiator = initiator;
        this.out = out;
        this.err = err;
    }

    /** The C main: the exit status. */
    public int main(String... args) {
        try {
            parse(args);
            return switch (mode == null ? "" : mode) {
                case "discovery", "discoverydb" -> discovery();
                case "node" -> node();
                case "session" -> session();
                default -> fail(ISCSI_ERR_INVAL, mode == null ? "You must specify a mode"
                        : "Invalid mode " + mode);
            };
        } catch (Exit e) {
            return e.status();
        } catch (IllegalArgumentException e) {
            return fail(ISCSI_ERR_INVAL, e.getMessage());
        }
    }

    private void parse(String[] args) {
        Getopt g = new Getopt("iscsiadm", args, "m:t:p:T:I:r:lu", LONG, err);
        for (int c; (c = g.next()) != -1;) {
            switch (c) {
                case 'm' -> mode = g.optarg;
                case 't' -> type = g.optarg;
                case 'p' -> portal = g.optarg;
                case 'T' -> target = g.optarg;
                case 'I' -> requireIser(g.optarg);
                case 'r' -> sid = g.optarg;
                case 'l' -> login = true;
                case 'u' -> logout = true;
                default -> throw Exit.exit(ISCSI_ERR_INVAL);
            }
        }
    }

    private static void requireIser(String iface) {
        if (!iface.equals("iser")) {
            throw new IllegalArgumentException("Could not read iface " + iface + ": only iser is served here");
        }
    }

    private int discovery() {
        if (type == null || !(type.equals("st") || type.equals("sendtargets"))) {
            return fail(ISCSI_ERR_INVAL, type == null ? "discovery mode requires a type (-t st)"
                    : "Unsupported discovery type " + type);
        }
        if (portal == null) {
            return fail(ISCSI_ERR_INVAL, "Login requires portal (-p IP[:PORT])");
        }
        List<DiscoveredTarget> found;
        try {
            found = await(initiator.discover(PortalArg.parse(portal)));
        } catch (LoginFailedException e) {
            err.append("iscsiadm: ").append(e.getMessage()).append('\n');
            return fail(e.kind().code(), "Could not perform SendTargets discovery: " + e.kind().words());
        } catch (Exception e) {
            return fail(ISCSI_ERR, "Could not perform SendTargets discovery: " + e.getMessage());
        }
        if (found.isEmpty()) {
            return fail(ISCSI_ERR_NO_OBJS_FOUND, "No portals found");
        }
        found.forEach(t -> out.println(t));
        return 0;
    }

    private int node() {
        if (login == logout) {
            return fail(ISCSI_ERR_INVAL, "node mode needs exactly one of --login or --logout");
        }
        if (logout) {
            return logout(matching());
        }
        if (target == null || portal == null) {
            return fail(ISCSI_ERR_NO_OBJS_FOUND, "No records found");
        }
        InetSocketAddress p = PortalArg.parse(portal);
        String where = "[iface: iser, target: " + target + ", portal: " + PortalArg.comma(p) + "]";
        out.println("Logging in to " + where);
        try {
            await(initiator.login(p, target));
        } catch (SessionExistsException e) {
            return fail(ISCSI_ERR_SESS_EXISTS, "default: 1 session requested, but 1 already present.");
        } catch (LoginFailedException e) {
            err.append("iscsiadm: ").append(e.getMessage()).append('\n');
            err.append("iscsiadm: Could not login to ").append(where).append(".\n");
            err.append("iscsiadm: initiator reported error (").append(e.kind().code()).append(" - ")
                    .append(e.kind().words()).append(")\n");
            return fail(e.kind().code(), "Could not log into all portals");
        } catch (Exception e) {
            err.append("iscsiadm: Could not login to ").append(where).append(".\n");
            return fail(ISCSI_ERR, e.getMessage());
        }
        out.println("Login to " + where + " successful.");
        return 0;
    }

    /** The sessions -T/-p (node mode) or -r (session mode) name. */
    private List<IserSession> matching() {
        List<IserSession> m = new ArrayList<>();
        InetSocketAddress p = portal == null ? null : PortalArg.parse(portal);
        for (IserSession s : initiator.sessions()) {
            boolean bySid = sid != null && String.valueOf(s.sid()).equals(sid);
            boolean byNode = sid == null && (target == null || target.equals(s.targetName()))
                    && (p == null || p.equals(s.portal()));
            if (bySid || byNode) {
                m.add(s);
            }
        }
        return m;
    }

    private int logout(List<IserSession> sessions) {
        if (sessions.isEmpty()) {
            return fail(ISCSI_ERR_NO_OBJS_FOUND, "No matching sessions found");
        }
        for (IserSession s : sessions) {
            out.println("Logging out of session [sid: " + s.sid() + ", target: " + s.targetName() + ", portal: "
                    + PortalArg.comma(s.portal()) + "]");
        }
        int status = 0;
        for (IserSession s : sessions) {
            String what = "[sid: " + s.sid() + ", target: " + s.targetName() + ", portal: "
                    + PortalArg.comma(s.portal()) + "]";
            try {
                await(s.logout());
                out.println("Logout of " + what + " successful.");
            } catch (Exception e) {
                err.append("iscsiadm: Could not logout of ").append(what).append(".\n");
                err.append("iscsiadm: initiator reported error (10 - logout failed)\n");
                status = ISCSI_ERR_LOGOUT;
            }
        }
        return status;
    }

    private int session() {
        if (logout) {
            return logout(matching());
        }
        List<IserSession> all = sid == null ? initiator.sessions() : matching();
        if (all.isEmpty()) {
            return fail(ISCSI_ERR_NO_OBJS_FOUND, sid == null ? "No active sessions." : "No session found.");
        }
        for (IserSession s : all) {
            out.println("iser: [" + s.sid() + "] " + PortalArg.colon(s.portal()) + "," + s.portalGroupTag() + " "
                    + s.targetName() + " (non-flash)");
        }
        return 0;
    }

    private int fail(int status, String message) {
        err.append("iscsiadm: ").append(message).append('\n');
        return status;
    }

    /** Waits for a stage, a slice at a time so that an interrupt (Ctrl-C) ends the run with status 130. */
    static <T> T await(CompletionStage<T> stage) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            Exit.checkInterrupt();
            try {
                return stage.toCompletableFuture().get(100, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            } catch (InterruptedException e) {
                throw Exit.interrupted();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            }
        }
    }
}
