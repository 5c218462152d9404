package org.jrdma.ulp.iser.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.shell.Iscsiadm;
import org.jrdma.ulp.iser.shell.IserIo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code iscsiadm} and {@code iser_io}: open-iscsi's lines and exit codes, against the scripted target. */
class IscsiadmTest {
    static final String IQN = "iqn.2003-01.org.example:t1";
    final MemoryTransport fabric = new MemoryTransport();
    final IserInitiatorService initiator = new IserInitiatorService(fabric, "iqn.2026-12.org.jrdma:01:test");
    final ScriptedTarget target = new ScriptedTarget(fabric, new InetSocketAddress("192.0.2.11", 3260), 64L << 20,
            128);
    String out;
    String err;

    @AfterEach
    void tearDown() {
        initiator.close();
        target.close();
        fabric.close();
    }

    /** A tool's C main over (out, err). */
    interface Tool {
        int main(PrintStream out, StringBuilder err, String... args);
    }

    int run(Tool tool, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StringBuilder e = new StringBuilder();
        int status = tool.main(new PrintStream(bytes, true, StandardCharsets.UTF_8), e, args);
        out = bytes.toString(StandardCharsets.UTF_8);
        err = e.toString();
        return status;
    }

    int iscsiadm(String... args) {
        return run((o, e, a) -> new Iscsiadm(initiator, o, e).main(a), args);
    }

    int iserIo(String... args) {
        return run((o, e, a) -> new IserIo(initiator, o, e).main(a), args);
    }

    @Test
    void discoveryPrintsPortalTagAndIqn() {
        assertEquals(0, iscsiadm("-m", "discovery", "-t", "st", "-p", "192.0.2.11"));
        assertEquals("192.0.2.11:3260,1 iqn.2003-01.org.example:t1\n192.0.2.11:3260,1 iqn.2003-01.org.example:t2\n",
                out);
        assertEquals(4, iscsiadm("-m", "discovery", "-t", "st", "-p", "192.0.2.12:3261"));
        assertTrue(err.endsWith("iscsiadm: Could not perform SendTargets discovery: encountered connection failure\n"),
                err);
        assertEquals(7, iscsiadm("-m", "discovery", "-t", "isns", "-p", "192.0.2.11"));
        // found by IserArgsFuzzTest: a portal whose name does not resolve was an NPE
        assertEquals(7, iscsiadm("-m", "node", "-T", IQN, "-p", "nosuch.invalid", "-l"));
        assertEquals("iscsiadm: Cannot resolve host nosuch.invalid. getaddrinfo error: [Name or service not known]\n",
                err);
    }

    @Test
    void loginSessionLogout() {
        assertEquals(21, iscsiadm("-m", "session"));
        assertEquals("iscsiadm: No active sessions.\n", err);
        assertEquals(0, iscsiadm("-m", "node", "-T", IQN, "-p", "192.0.2.11:3260", "--login"));
        assertEquals("Logging in to [iface: iser, target: " + IQN + ", portal: 192.0.2.11,3260]\n"
                + "Login to [iface: iser, target: " + IQN + ", portal: 192.0.2.11,3260] successful.\n", out);
        assertEquals(15, iscsiadm("-m", "node", "-T", IQN, "-p", "192.0.2.11", "--login"));
        assertEquals("iscsiadm: default: 1 session requested, but 1 already present.\n", err);
        assertEquals(0, iscsiadm("-m", "session"));
        assertEquals("iser: [1] 192.0.2.11:3260,1 " + IQN + " (non-flash)\n", out);
        assertEquals(0, iscsiadm("-m", "node", "-T", IQN, "-p", "192.0.2.11", "--logout"));
        assertEquals("Logging out of session [sid: 1, target: " + IQN + ", portal: 192.0.2.11,3260]\n"
                + "Logout of [sid: 1, target: " + IQN + ", portal: 192.0.2.11,3260] successful.\n", out);
        assertEquals(21, iscsiadm("-m", "node", "-T", IQN, "-p", "192.0.2.11", "--logout"));
        assertEquals("iscsiadm: No matching sessions found\n", err);
    }

    @Test
    void refusedLoginExitsNineteen() {
        assertEquals(19, iscsiadm("-m", "node", "-T", "iqn.2003-01.org.example:nope", "-p", "192.0.2.11", "-l"));
        assertTrue(err.contains("iscsiadm: Could not login to [iface: iser, target: iqn.2003-01.org.example:nope,"
                + " portal: 192.0.2.11,3260].\niscsiadm: initiator reported error (19 - encountered non-retryable"
                + " iSCSI login failure)\niscsiadm: Could not log into all portals\n"), err);
    }

    @Test
    void aTargetThatNeverAnswersTheLoginIsConnectionTimedOut() {
        InetSocketAddress silent = new InetSocketAddress("192.0.2.13", 3260);
        fabric.listen(silent, c -> c.handler(new org.jrdma.ulp.iser.conn.IserConnectionHandler() {
            @Override public void onPdu(org.jrdma.ulp.iser.conn.IserConnection conn,
                    org.jrdma.ulp.iser.pdu.IserPdu pdu) { }
            @Override public void onDisconnected(org.jrdma.ulp.iser.conn.IserConnection conn, String reason) { }
        }));
        initiator.defaultOptions(initiator.defaultOptions().withTimeouts(java.time.Duration.ofSeconds(120),
                java.time.Duration.ofMillis(300), java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(5)));
        assertEquals(8, iscsiadm("-m", "node", "-T", IQN, "-p", "192.0.2.13", "--login"));
        assertTrue(err.contains("iscsiadm: initiator reported error (8 - connection timed out)\n"), err);
        assertEquals(8, iscsiadm("-m", "discovery", "-t", "sendtargets", "-p", "192.0.2.13:3260"));
        assertTrue(err.endsWith("iscsiadm: Could not perform SendTargets discovery: connection timed out\n"), err);
        assertEquals(21, iscsiadm("-m", "session"), "a failed login leaves no session behind");
    }

    @Test
    void iserIoWritesVerifiesAndReports() {
        assertEquals(0, iscsiadm("-m", "node", "-T", IQN, "-p", "192.0.2.11", "--login"));
        assertEquals(0, iserIo("-T", IQN, "--lun", "0", "--offset", "1m", "--size", "4m", "--bs", "64k", "--qd",
                "8", "--pattern", "deadbeef", "--write"));
        assertTrue(out.startsWith("write: 4194304 bytes in 64 I/Os of 65536 bytes at QD 8: "), out);
        assertTrue(out.matches("(?s).* MB/s, \\d+ IOPS\n"), out);
        byte[] disk = target.disk();
        assertEquals((byte) 0xde, disk[1 << 20]);
        assertEquals((byte) 0xef, disk[(1 << 20) + 4 * 1024 * 1024 - 1]);
        assertEquals(0, disk[(1 << 20) - 1]);
        assertEquals(0, deadbeef4k("--verify"));
        assertTrue(out.endsWith("verify: OK (4194304 bytes match pattern deadbeef)\n"), out);
        assertEquals(0, deadbeef4k("--random", "--verify"));
        assertTrue(out.endsWith("verify: OK (4194304 bytes match pattern deadbeef)\n"), out);
        disk[(1 << 20) + 5000] ^= 1;
        assertEquals(1, deadbeef4k("--verify"));
        assertTrue(out.endsWith("verify: MISMATCH at byte 1053576\n"), out);
        assertEquals(0, deadbeef4k("--random", "--write"));
        assertTrue(out.startsWith("random write: 4194304 bytes in 1024 I/Os of 4096 bytes at QD 32: "), out);
        assertEquals(1, iserIo("-s", "1", "--offset", "64m", "--size", "4k", "--read"));
        assertTrue(err.contains("ILLEGAL REQUEST: LOGICAL BLOCK ADDRESS OUT OF RANGE"), err);
        assertEquals(2, iserIo("-s", "9", "--read"));
        assertEquals("iser_io: no session 9 (iscsiadm -m session)\n", err);
    }

    /** iser_io over 4 MiB from 1 MiB of session 1 in 4 KiB I/Os at QD 32 with pattern deadbeef. */
    int deadbeef4k(String... more) {
        List<String> args = new ArrayList<>(List.of("-s", "1", "--offset", "1m", "--size", "4m", "--bs", "4k",
                "--qd", "32", "--pattern", "deadbeef"));
        args.addAll(List.of(more));
        return iserIo(args.toArray(String[]::new));
    }
}
