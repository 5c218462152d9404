package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.cli.Printf;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every tool, server and client in one JVM on a two-port hw-loopback device (server port 1, client
 * port 2, TCP on 127.0.0.1), output checked line by line against perftest's layout, the moved data
 * checked in the buffers; nothing may be left on the device afterwards.
 */
class LoopbackTest {
    IbCore core;
    LoopbackDevice lo;
    IbDevice dev;
    String port;

    @BeforeEach
    void setUp() throws Exception {
        core = IbCore.newInstance();
        lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0);
        dev = lo.register(core.registrar()).device();
        port = Integer.toString(Side.freePort());
    }

    @AfterEach
    void tearDown() {
        List<ResourceInfo> left = dev.resources();
        UnregisterReport report = lo.close();
        assertEquals(List.of(), left, "rdma res after the run");
        assertEquals(List.of(), report.leaked());
    }

    Side[] pair(String tool, String... extra) throws Exception {
        String[] s = concat(new String[] {"-d", dev.name(), "-i", "1", "-p", port}, extra);
        String[] c = concat(concat(new String[] {"-d", dev.name(), "-i", "2", "-p", port}, extra), new String[] {"127.0.0.1"});
        Side server = Side.server(tool, core, null, s);
        Side client = Side.start(tool, core, null, c);
        int cs = client.await(120);
        int ss = server.await(60);
        assertEquals(0, cs, "client: " + client.err() + client.out());
        assertEquals(0, ss, "server: " + server.err() + server.out());
        return new Side[] {server, client};
    }

    static String[] concat(String[] a, String[] b) {
        String[] r = new String[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    static final String DASHES = "---------------------------------------------------------------------------------------";
    static final Pattern ADDR = Pattern.compile(
            " (local|remote) address: LID (0000|0x[0-9a-f]{2,}) QPN 0x[0-9a-f]{4,6} PSN 0x[0-9a-f]{1,6}( OUT 0x[0-9a-f]{2,})?( RKey 0x[0-9a-f]{6,8} VAddr 0x[0-9a-f]{14})?");
    static final Pattern BW_ROW = Pattern.compile(" (\\d+) +(\\d+) +\\d+\\.\\d{2} +\\d+\\.\\d{2} *\t\t   \\d+\\.\\d{6} *");
    static final Pattern LAT_ROW = Pattern.compile(
            " (\\d+) +(\\d+) +(\\d+\\.\\d{2} +){3}\t +\\d+\\.\\d{2} +\t\\d+\\.\\d{2} *\t\t\\d+\\.\\d{2} *\t\t\\d+\\.\\d{2} *");

    /** The header block as perftest prints it, for this side. */
    static void checkHeader(String out, String title, boolean client, boolean bw, boolean send, boolean readLike,
            String device) {
        String[] l = out.split("\n", -1);
        int i = 0;
        if (readLike && !client) {
            // "Device not recognized to implement inline feature. Disabling it" (stderr) and its line
            assertEquals(DASHES, l[i++]);
        }
        if (!client) {
            assertEquals("", l[i++]);
            assertEquals("************************************", l[i++]);
            assertEquals("* Waiting for client to connect... *", l[i++]);
            assertEquals("************************************", l[i++]);
        } else if (readLike) {
            assertEquals(DASHES, l[i++]);
        }
        assertEquals(DASHES, l[i++]);
        assertEquals("                    " + title, l[i++]);
        assertEquals(" Dual-port       : OFF\t\tDevice         : " + device, l[i++]);
        assertEquals(" Number of qps   : 1\t\tTransport type : IB", l[i++]);
        assertEquals(" Connection type : RC\t\tUsing SRQ      : OFF", l[i++]);
        assertTrue(l[i++].startsWith(" PCIe relax order: O"));
        assertEquals(" ibv_wr* API     : OFF", l[i++]);
        if (client) {
            assertTrue(l[i++].matches(" TX depth        : \\d+"), l[i - 1]);
        } else if (send) {
            assertTrue(l[i++].matches(" RX depth        : \\d+"), l[i - 1]);
        }
        if (bw) {
            assertTrue(l[i++].matches(" CQ Moderation   : \\d+"), l[i - 1]);
        }
        assertTrue(l[i++].matches(" Mtu             : \\d+\\[B\\]"), l[i - 1]);
        assertEquals(" Link type       : IB", l[i++]);
        assertEquals(readLike ? " Outstand reads  : " + l[i].substring(19) : " Max inline data : 0[B]", l[i++]);
        assertEquals(" rdma_cm QPs\t : OFF", l[i++]);
        assertEquals(" Data ex. method : Ethernet", l[i++]);
        assertEquals(DASHES, l[i++]);
        assertTrue(ADDR.matcher(l[i++]).matches(), l[i - 1]);
        assertTrue(ADDR.matcher(l[i++]).matches(), l[i - 1]);
        assertEquals(DASHES, l[i++]);
    }

    static List<String> rows(String out, Pattern p) {
        return out.lines().filter(s -> p.matcher(s).matches()).toList();
    }

    @Test
    void writeBw65536() throws Exception {
        Side[] s = pair("ib_write_bw", "-n", "1000", "-s", "65536");
        checkHeader(s[0].out(), "RDMA_Write BW Test", false, true, false, false, dev.name());
        checkHeader(s[1].out(), "RDMA_Write BW Test", true, true, false, false, dev.name());
        for (Side side : s) {
            String[] l = side.out().split("\n");
            assertEquals(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]", l[l.length - 3]);
            assertTrue(BW_ROW.matcher(l[l.length - 2]).matches(), l[l.length - 2]);
            assertTrue(l[l.length - 2].startsWith(" 65536      1000 "), l[l.length - 2]);
            assertEquals(DASHES, l[l.length - 1]);
        }
        // the server's table shows the client's numbers (xchg_bw_reports)
        assertEquals(last(s[1].out(), 2), last(s[0].out(), 2));
        // the client's first 65536 bytes landed in the server's second half
        byte[] sb = s[0].buffer.get();
        byte[] cb = s[1].buffer.get();
        int half = sb.length / 2;
        for (int i = 0; i < 65536; i++) {
            assertEquals(cb[i], sb[half + i], "byte " + i);
        }
    }

    static String last(String out, int fromEnd) {
        String[] l = out.split("\n");
        return l[l.length - fromEnd];
    }

    @Test
    void writeBwAllSizes() throws Exception {
        Side[] s = pair("ib_write_bw", "-a", "-n", "5", "--report_gbits");
        // with --report_gbits an average below 0.1 is printed with REPORT_FMT_EXT's six decimals
        List<String> rows = rows(s[1].out(), Pattern.compile(BW_ROW.pattern() + "| (\\d+) +(\\d+) +\\d+\\.\\d{6} +\\d+\\.\\d{6} +\\d+\\.\\d{6}"));
        assertEquals(23, rows.size(), s[1].out());
        for (int i = 0; i < 23; i++) {
            assertTrue(rows.get(i).startsWith(Printf.f(" %-7d    %-10d", 2L << i, 5)), rows.get(i));
        }
        assertTrue(s[1].out().contains(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"));
        assertEquals(1, rows(s[0].out(), BW_ROW).size(), s[0].out());
        byte[] sb = s[0].buffer.get();
        byte[] cb = s[1].buffer.get();
        int half = sb.length / 2;
        for (int i = 0; i < (1 << 23); i += 4097) {
            assertEquals(cb[i], sb[half + i], "byte " + i);
        }
    }

    /**
     * On a terminal perftest's inline warning (stderr) follows the dashes it printed to stdout just before,
     * ahead of the header: it is printed when it happens, not kept for the end of the run.
     */
    @Test
    void readBwWarningIsWhereATerminalShowsIt() throws Exception {
        Side[] s = pair("ib_read_bw", "-n", "5", "-s", "64");
        for (Side side : s) {
            assertTrue(side.tty().startsWith(DASHES + "\nDevice not recognized to implement inline feature. Disabling it\n"),
                    side.tty());
            assertEquals("Device not recognized to implement inline feature. Disabling it\n", side.err());
        }
    }

    @Test
    void readBw() throws Exception {
        Side[] s = pair("ib_read_bw", "-n", "200", "-s", "16384");
        checkHeader(s[0].out(), "RDMA_Read BW Test", false, true, false, true, dev.name());
        checkHeader(s[1].out(), "RDMA_Read BW Test", true, true, false, true, dev.name());
        assertTrue(last(s[1].out(), 2).startsWith(" 16384      200 "));
        byte[] sb = s[0].buffer.get();
        byte[] cb = s[1].buffer.get();
        int half = sb.length / 2;
        for (int i = 0; i < 16384; i++) {
            assertEquals(sb[half + i], cb[i], "byte " + i);
        }
    }

    @Test
    void sendBw() throws Exception {
        Side[] s = pair("ib_send_bw", "-n", "500", "-s", "4096");
        checkHeader(s[0].out(), "Send BW Test", false, true, true, false, dev.name());
        checkHeader(s[1].out(), "Send BW Test", true, true, true, false, dev.name());
        assertTrue(last(s[0].out(), 2).startsWith(" 4096       500 "), s[0].out());
        assertTrue(last(s[1].out(), 2).startsWith(" 4096       500 "), s[1].out());
        byte[] sb = s[0].buffer.get();
        byte[] cb = s[1].buffer.get();
        int half = sb.length / 2;
        for (int i = 0; i < 4096; i++) {
            assertEquals(cb[i], sb[half + i], "byte " + i);
        }
    }

    @Test
    void sendBwAllSizes() throws Exception {
        Side[] s = pair("ib_send_bw", "-a", "-n", "5");
        assertEquals(23, rows(s[0].out(), BW_ROW).size(), s[0].out());
        assertEquals(23, rows(s[1].out(), BW_ROW).size(), s[1].out());
    }

    @Test
    void atomicBwFetchAndAdd() throws Exception {
        Side[] s = pair("ib_atomic_bw", "-n", "100", "-A", "FETCH_AND_ADD");
        checkHeader(s[1].out(), "Atomic FETCH_AND_ADD BW Test", true, true, false, true, dev.name());
        assertTrue(last(s[1].out(), 2).startsWith(" 8          100 "), s[1].out());
        byte[] sb = s[0].buffer.get();
        int half = sb.length / 2;
        // sw-rdmavt (hw-loopback) does its atomics on big-endian memory; Linux rxe uses host order
        long before = ByteBuffer.wrap(patternOf(false, sb.length), half, 8).order(ByteOrder.BIG_ENDIAN).getLong();
        long after = ByteBuffer.wrap(sb, half, 8).order(ByteOrder.BIG_ENDIAN).getLong();
        assertEquals(before + 100, after);
    }

    static byte[] patternOf(boolean client, int len) {
        byte seed = (byte) (client ? 0x5a : 0x3c);
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    @Test
    void atomicBwCompareAndSwap() throws Exception {
        Side[] s = pair("ib_atomic_bw", "-n", "50", "-A", "CMP_AND_SWAP");
        checkHeader(s[0].out(), "Atomic CMP_AND_SWAP BW Test", false, true, false, true, dev.name());
    }

    @Test
    void writeLat() throws Exception {
        Side[] s = pair("ib_write_lat", "-n", "1000", "-s", "64");
        checkHeader(s[0].out(), "RDMA_Write Latency Test", false, false, false, false, dev.name());
        checkHeader(s[1].out(), "RDMA_Write Latency Test", true, false, false, false, dev.name());
        for (Side side : s) {
            assertTrue(side.out().contains(PerfReport.RESULT_FMT_LAT + "\n"));
            List<String> rows = rows(side.out(), LAT_ROW);
            assertEquals(1, rows.size(), side.out());
            assertTrue(rows.get(0).startsWith(" 64      1000 "), rows.get(0));
        }
    }

    @Test
    void writeLatAllSizes() throws Exception {
        Side[] s = pair("ib_write_lat", "-a", "-n", "10");
        assertEquals(23, rows(s[1].out(), LAT_ROW).size(), s[1].out());
        assertEquals(23, rows(s[0].out(), LAT_ROW).size(), s[0].out());
    }

    @Test
    void sendLat() throws Exception {
        Side[] s = pair("ib_send_lat", "-n", "500", "-s", "128");
        checkHeader(s[0].out(), "Send Latency Test", false, false, true, false, dev.name());
        checkHeader(s[1].out(), "Send Latency Test", true, false, true, false, dev.name());
        assertEquals(1, rows(s[0].out(), LAT_ROW).size(), s[0].out());
        assertEquals(1, rows(s[1].out(), LAT_ROW).size(), s[1].out());
        byte[] sb = s[0].buffer.get();
        byte[] cb = s[1].buffer.get();
        int half = sb.length / 2;
        for (int i = 0; i < 128; i++) {
            assertEquals(cb[i], sb[half + i], "byte " + i);
        }
    }

    @Test
    void readLat() throws Exception {
        Side[] s = pair("ib_read_lat", "-n", "300", "-s", "256");
        checkHeader(s[1].out(), "RDMA_Read Latency Test", true, false, false, true, dev.name());
        assertEquals(1, rows(s[1].out(), LAT_ROW).size(), s[1].out());
        assertEquals(0, rows(s[0].out(), LAT_ROW).size());
        assertTrue(s[0].out().matches("(?s).* remote address: [^\n]*\n" + DASHES + "\n"), s[0].out());
    }

    @Test
    void atomicLat() throws Exception {
        Side[] s = pair("ib_atomic_lat", "-n", "300");
        checkHeader(s[1].out(), "Atomic FETCH_AND_ADD Latency Test", true, false, false, true, dev.name());
        assertEquals(1, rows(s[1].out(), LAT_ROW).size(), s[1].out());
    }

    @Test
    void writeBwDuration() throws Exception {
        Side[] s = pair("ib_write_bw", "-D", "3", "-s", "4096");
        List<String> rows = rows(s[1].out(), BW_ROW);
        assertEquals(1, rows.size(), s[1].out());
        assertTrue(rows.get(0).startsWith(" 4096 "), rows.get(0));
    }

    static final Pattern LAT_DUR_ROW = Pattern.compile(" (\\d+) +(\\d+) +\\d+\\.\\d{2} +\\d+\\.\\d{2}");

    /** -D on the latency tools and on send_bw's server: one row of what the sample window counted. */
    @Test
    void latenciesAndSendBwInDurationMode() throws Exception {
        for (String tool : List.of("ib_write_lat", "ib_send_lat", "ib_read_lat")) {
            Side[] s = pair(tool, "-D", "2", "-s", "64");
            Side measuring = s[1];
            assertTrue(measuring.out().contains(PerfReport.RESULT_FMT_LAT_DUR + "\n"), measuring.out());
            List<String> rows = rows(measuring.out(), LAT_DUR_ROW);
            assertEquals(1, rows.size(), tool + ": " + measuring.out());
            Matcher m = LAT_DUR_ROW.matcher(rows.get(0));
            assertTrue(m.matches() && m.group(1).equals("64") && Long.parseLong(m.group(2)) > 0, rows.get(0));
        }
        Side[] s = pair("ib_send_bw", "-D", "2", "-s", "1024");
        for (Side side : s) {
            List<String> rows = rows(side.out(), BW_ROW);
            assertEquals(1, rows.size(), side.out());
            assertTrue(rows.get(0).startsWith(" 1024 "), rows.get(0));
        }
    }

    @Test
    void writeBwTwoQps() throws Exception {
        Side[] s = pair("ib_write_bw", "-q", "2", "-n", "200", "-s", "1024");
        assertTrue(last(s[1].out(), 2).startsWith(" 1024       400 "), s[1].out());
    }

    @Test
    void writeLatWithGidIndex() throws Exception {
        Side[] s = pair("ib_write_lat", "-x", "0", "-n", "50");
        assertTrue(s[1].out().contains("\n GID index       : 0\n"));
        assertTrue(s[1].out().contains("\n GID: 254:128:00:00:00:00:00:00:"), s[1].out());
    }
}
