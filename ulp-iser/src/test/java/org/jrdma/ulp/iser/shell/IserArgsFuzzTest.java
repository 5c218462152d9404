package org.jrdma.ulp.iser.shell;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jrdma.testsupport.FuzzArgs;
import org.jrdma.ulp.iser.DiscoveredTarget;
import org.jrdma.ulp.iser.IserInitiator;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.target.TargetTree;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: the command lines of ulp-iser's Gogo commands, NUL-separated after a control byte (ignored).
 * {@link #targetcli}: one line on a fresh {@link TargetTree} (paths, parameters {@code key=value}, sizes, IQNs,
 * portals); lines that name fileio are skipped, as they create files. {@link #iscsiadm}: open-iscsi's options
 * and modes against an initiator whose discovery and login fail at once (no RDMA path), so the parsing and the
 * error reporting run, not the network; portal host names are not looked up ({@link #noLookups}). Per input: a
 * status, and words on stdout or stderr with every status that is not 0; nothing else comes out.
 */
class IserArgsFuzzTest {
    /** An initiator with no way to any portal. */
    static final IserInitiator UNREACHABLE = new IserInitiator() {
        @Override
        public String initiatorName() {
            return "iqn.2004-10.com.ubuntu:01:fuzz";
        }

        @Override
        public CompletionStage<List<DiscoveredTarget>> discover(InetSocketAddress portal) {
            return CompletableFuture.failedFuture(new IserIoException("connect to " + portal + ": no route to host"));
        }

        @Override
        public CompletionStage<IserSession> login(InetSocketAddress portal, String targetName,
                IserSessionOptions options) {
            return CompletableFuture.failedFuture(new IserIoException("connect to " + portal + ": no route to host"));
        }

        @Override
        public List<IserSession> sessions() {
            return List.of();
        }
    };

    @FuzzTest(maxDuration = "60s")
    void targetcli(byte[] data) {
        String[] words = FuzzArgs.split(data, 12);
        for (String w : words) {
            if (w.toLowerCase(Locale.ROOT).contains("fileio")) {
                return; // creates a file where the line says: not on the fuzzing host
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder err = new StringBuilder();
        int status = Targetcli.run(new TargetTree(), new PrintStream(out, true, StandardCharsets.UTF_8), err, words);
        assertFalse(status != 0 && out.size() == 0 && err.length() == 0, () -> "status " + status
                + " and not a word: " + String.join(" ", words));
    }

    @FuzzTest(maxDuration = "60s")
    void iscsiadm(byte[] data) {
        String[] args = FuzzArgs.split(data, 12);
        noLookups(args);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder err = new StringBuilder();
        int status = new Iscsiadm(UNREACHABLE, new PrintStream(out, true, StandardCharsets.UTF_8), err).main(args);
        assertFalse(status != 0 && out.size() == 0 && err.length() == 0, () -> "status " + status
                + " and not a word: " + String.join(" ", args));
    }

    /**
     * {@code iser_io} (even control byte) against an initiator with no session, so the options, the byte counts and
     * the pattern are parsed and the run ends at "no session"; or {@code sleep} (odd), interrupted (Ctrl-C) after
     * 20 ms if it still sleeps, which must end it (130) within a second. Per input: a status, words with every
     * status but 0 and 130, nothing thrown.
     */
    @FuzzTest(maxDuration = "60s")
    void ioAndSleep(byte[] data) throws Exception {
        String[] args = FuzzArgs.split(data, 12);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder err = new StringBuilder();
        int[] status = {-1};
        boolean sleep = (FuzzArgs.control(data) & 1) != 0;
        Thread t = new Thread(() -> status[0] = sleep ? SleepCommand.sleep(args, err)
                : new IserIo(UNREACHABLE, new PrintStream(out, true, StandardCharsets.UTF_8), err).main(args));
        t.start();
        t.join(20);
        t.interrupt();
        t.join(1000);
        assertFalse(t.isAlive(), () -> "still running 1 s after Ctrl-C: " + String.join(" ", args));
        assertTrue(status[0] >= 0 && status[0] <= 255, () -> "status " + status[0] + " (the run threw?)");
        // 130: ended by the Ctrl-C, silent as a process killed by SIGINT
        assertFalse(status[0] != 0 && status[0] != 130 && out.size() == 0 && err.length() == 0, () -> "status "
                + status[0] + " and not a word: " + String.join(" ", args));
    }

    /**
     * Portal values ({@code -p V}, {@code -pV}, {@code --portal V}, {@code --portal=V}, and long-option
     * prefixes such as {@code --por}) whose host part is not an IP literal get the host 192.0.2.1 (TEST-NET-1),
     * port and brackets kept: {@code new InetSocketAddress(host, port)} would look a name up.
     */
    static void noLookups(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                return;
            }
            int eq = a.indexOf('=');
            if (a.startsWith("--") && a.length() > 2 && "--portal".startsWith(eq < 0 ? a : a.substring(0, eq))) {
                if (eq >= 0) {
                    args[i] = a.substring(0, eq + 1) + literal(a.substring(eq + 1));
                } else if (i + 1 < args.length) {
                    args[i + 1] = literal(args[++i]);
                }
            } else if (a.startsWith("-") && !a.startsWith("--") && a.length() > 1) {
                for (int j = 1; j < a.length(); j++) {
                    char o = a.charAt(j);
                    if ("mtpTIr".indexOf(o) < 0) {
                        continue;
                    }
                    if (j + 1 < a.length()) {
                        if (o == 'p') {
                            args[i] = a.substring(0, j + 1) + literal(a.substring(j + 1));
                        }
                    } else if (i + 1 < args.length) {
                        i++;
                        if (o == 'p') {
                            args[i] = literal(args[i]);
                        }
                    }
                    break;
                }
            }
        }
    }

    /** The portal with its host replaced by 192.0.2.1 unless the host is an IP literal (as PortalArg splits it). */
    private static String literal(String portal) {
        String host = portal;
        String rest = "";
        int colon = portal.lastIndexOf(':');
        if (portal.startsWith("[")) {
            int close = portal.indexOf(']');
            if (close < 0) {
                return portal; // PortalArg refuses it before any lookup
            }
            host = portal.substring(1, close);
            rest = portal.substring(close);
            return host.indexOf(':') >= 0 ? portal : "[192.0.2.1" + rest;
        } else if (colon > 0 && portal.indexOf(':') == colon) {
            host = portal.substring(0, colon);
            rest = portal.substring(colon);
        }
        boolean ipv4 = host.chars().allMatch(ch -> ch >= '0' && ch <= '9' || ch == '.');
        return host.indexOf(':') >= 0 || ipv4 && !host.isEmpty() ? portal : "192.0.2.1" + rest;
    }
}
