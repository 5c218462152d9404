package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;
import org.junit.jupiter.api.Test;

/** perftest's option parsing: defaults, dependencies, and its messages and exit status for bad input. */
class OptionsTest {
    static Params parse(String tool, String... args) {
        Perftest t = Perftest.named(tool);
        String[] p = tool.split("_");
        Params.Verb v = Params.Verb.valueOf(p[1].toUpperCase());
        Params.Tst tst = Params.Tst.valueOf(p[2].toUpperCase());
        Params params = new Params(v, tst, t.name());
        StringBuilder err = new StringBuilder();
        assertEquals(0, params.parse(args, new PrintStream(new ByteArrayOutputStream()), err), err.toString());
        return params;
    }

    record Result(int status, String out, String err) {
    }

    static Result run(String tool, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int st = Perftest.named(tool).run(IbCore.newInstance(), null, new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), args);
        return new Result(st, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    @Test
    void defaults() {
        Params p = parse("ib_write_bw");
        assertEquals(65536, p.size);
        assertEquals(5000, p.iters);
        assertEquals(128, p.txDepth);
        assertEquals(1, p.cqMod); // 65536 > 8192: CQ moderation off
        assertEquals(18515, p.port);
        assertEquals(Params.Machine.SERVER, p.machine);
        Params l = parse("ib_send_lat", "10.0.0.1");
        assertEquals(2, l.size);
        assertEquals(1000, l.iters);
        assertEquals(1, l.txDepth);
        assertEquals(Params.Machine.CLIENT, l.machine);
        assertEquals("10.0.0.1", l.servername);
        Params a = parse("ib_atomic_bw");
        assertEquals(8, a.size);
        assertEquals(true, a.fetchAndAdd);
    }

    @Test
    void dependencies() {
        Params p = parse("ib_write_bw", "-n", "5", "-s", "64");
        assertEquals(5, p.txDepth);
        assertEquals(5, p.cqMod);
        Params s = parse("ib_send_bw", "-n", "5", "-s", "64");
        assertEquals(6, s.rxDepth); // rx depth capped by iterations, then made even
        Params all = parse("ib_read_bw", "-a");
        assertEquals(8388608, all.size);
        Params d = parse("ib_write_bw", "-D", "10");
        assertEquals(0, d.iters);
        assertEquals(2, d.margin);
        Params k = parse("ib_write_bw", "--size=4K", "--report_gbits", "-q", "4", "-t", "16", "-m", "1024", "-x", "3", "-R", "-F");
        assertEquals(4096, k.size);
        assertTrue(k.gbits);
        assertEquals(4, k.numOfQps);
        assertEquals(16, k.txDepth);
        assertEquals(1024, k.mtu);
        assertEquals(3, k.gidIndex);
        assertTrue(k.rdmaCm);
        Params big = parse("ib_write_bw", "-n", "30000", "-s", "64");
        assertTrue(big.noPeak);
    }

    @Test
    void errorsAsPerftestPrintsThem() {
        Result r = run("ib_write_bw", "-n", "3");
        assertEquals(1, r.status);
        assertEquals(" Iteration num should be between 5 and 100000000\n Parser function exited with Error\n", r.err);
        r = run("ib_write_bw", "-n", "abc");
        assertEquals(" Iteration num argument abc should be int\n Parser function exited with Error\n", r.err);
        r = run("ib_write_bw", "-t", "0");
        assertEquals(" Tx depth should be between 1 and 15000\n Parser function exited with Error\n", r.err);
        r = run("ib_write_bw", "-x", "99");
        assertEquals(" Gid index should be between 0 and 64\n Parser function exited with Error\n", r.err);
        r = run("ib_write_lat", "-q", "2");
        assertEquals(" Multiple QPs only available on bw tests\n Parser function exited with Error\n", r.err);
        r = run("ib_write_bw", "-A", "CMP_AND_SWAP");
        assertEquals(" You are not running the atomic_lat/bw test!\n To change the atomic action type, you must run one of"
                + " the atomic tests\n Parser function exited with Error\n", r.err);
        r = run("ib_atomic_bw", "-A", "XOR");
        assertEquals(" Invalid Atomic type! please choose from {CMP_AND_SWAP,FETCH_AND_ADD}\n", r.err);
        r = run("ib_atomic_bw", "-s", "16");
        assertEquals(1, r.status);
        assertEquals(Params.RESULT_LINE + "Message size cannot be changed for Atomic tests \n", r.out);
        r = run("ib_write_bw", "-s", "0");
        assertEquals(" Message Size should be between 1 and 2147483647\n Parser function exited with Error\n", r.err);
        r = run("ib_write_bw", "a", "b");
        assertEquals(" Invalid Command line. Please check command rerun \n Parser function exited with Error\n", r.err);
        r = run("ib_write_bw", "-k");
        assertTrue(r.err.startsWith("ib_write_bw: invalid option -- 'k'\n Invalid Command or flag.\n Please check command line and run again.\n\n"), r.err);
        assertTrue(r.out.startsWith("Usage:\n  ib_write_bw            start a server and wait for connection\n"));
        r = run("ib_write_bw", "-n");
        assertTrue(r.err.startsWith("ib_write_bw: option requires an argument -- 'n'\n"), r.err);
        r = run("ib_write_bw", "--bogus");
        assertTrue(r.err.startsWith("ib_write_bw: unrecognized option '--bogus'\n"), r.err);
        r = run("ib_write_bw", "-d", "nosuch");
        assertEquals("IB device nosuch not found\n Unable to find the Infiniband/RoCE device\n", r.err);
        assertEquals(1, r.status);
    }

    @Test
    void getoptLongPrefixesBundlesAndAttachedArguments() {
        Params p = parse("ib_write_bw", "--ite=7", "-aF", "-s64", "--tx", "3", "-C", "--report_g", "--", "10.0.0.2");
        assertEquals(7, p.iters);
        assertTrue(p.runAll);
        assertTrue(p.cpuFreqF);
        assertEquals(3, p.txDepth);
        assertTrue(p.gbits);
        assertTrue(!p.cycles); // -C means nothing to a BW test
        assertEquals("10.0.0.2", p.servername);
        Params l = parse("ib_write_lat", "-CHU");
        assertTrue(l.cycles && l.histogram && l.unsorted);
        Result r = run("ib_write_bw", "--report");
        assertTrue(r.err.startsWith("ib_write_bw: option '--report' is ambiguous\n Invalid Command or flag.\n"), r.err);
        r = run("ib_write_bw", "--all=1");
        assertTrue(r.err.startsWith("ib_write_bw: option '--all' doesn't allow an argument\n"), r.err);
        r = run("ib_write_bw", "--size");
        assertTrue(r.err.startsWith("ib_write_bw: option '--size' requires an argument\n"), r.err);
        r = run("ib_write_bw", "-i", "0");
        assertEquals("IB Port can't be less than 1\n Parser function exited with Error\n", r.err);
        r = run("ib_write_bw", "-c", "UD");
        assertEquals(" Connection type UD is not supported by this perftest (RC only)\n", r.err);
    }

    @Test
    void helpAndVersion() {
        Result r = run("ib_write_bw", "-h");
        assertEquals(1, r.status); // perftest returns FAILURE after the help text
        assertEquals("", r.err);
        assertTrue(r.out.contains("  -n, --iters=<iters>  Number of exchanges (at least 5, default 5000)\n"), r.out);
        assertTrue(r.out.contains("      --report_gbits  Report Max/Average BW of test in Gbit/sec (instead of MiB/sec)\n"));
        Result a = run("ib_atomic_lat", "-h");
        assertTrue(a.out.contains("  -A, --atomic_type=<type>  type of atomic operation from {CMP_AND_SWAP,FETCH_AND_ADD} (default FETCH_AND_ADD)\n"));
        assertTrue(!a.out.contains("  -s, --size"));
        Result v = run("ib_send_bw", "-V");
        assertEquals("Version: 6.06\n", v.out);
    }

    @Test
    void commandFailureCarriesStatusAndStderr() {
        CommandFailure f = assertThrows(CommandFailure.class, () -> Perftest.named("ib_read_lat").execute(IbCore.newInstance(),
                null, new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream()), "-n", "1"));
        assertEquals(" Iteration num should be between 5 and 100000000\n Parser function exited with Error", f.getMessage());
    }

    @Test
    void rdmaCmWithoutTheCmService() {
        Result r = run("ib_send_bw", "-R");
        assertEquals(1, r.status);
    }
}
