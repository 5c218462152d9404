package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ThreadLocalRandom;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.impl.RdmaCmService;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.testsupport.TestVectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tools over two hw-rxe devices on real UDP (loopback addresses 127.X.Y.1 and .2), RoCE v2 with
 * the IPv4-mapped GID (index 0 on {@code lo}, which has no MAC-derived GID; index 1 on a real
 * netdev, {@code -x 1} against Linux), the TCP side channel on 127.0.0.1; and {@code -R}
 * over the RDMA CM (MAD layer and CM service on the same devices).
 */
class RxeTest {
    IbCore core;
    RxeNetDevice ra;
    RxeNetDevice rb;
    MadLayer mad;
    RdmaCmService cm;
    String net;
    String port;

    @BeforeEach
    void up() throws Exception {
        core = IbCore.newInstance();
        net = "127." + ThreadLocalRandom.current().nextInt(16, 250) + "." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
        ra = RxeNetDevice.open(core.registrar(), "pta%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
        rb = RxeNetDevice.open(core.registrar(), "ptb%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
        mad = new MadLayer(core);
        cm = new RdmaCmService(core, mad);
        port = Integer.toString(Side.freePort());
    }

    @AfterEach
    void down() {
        cm.close();
        mad.close();
        ra.close();
        rb.close();
    }

    Side[] pair(String tool, boolean rdmaCm, String... extra) throws Exception {
        String server = rb.ibDevice().name();
        String client = ra.ibDevice().name();
        String[] s = LoopbackTest.concat(new String[] {"-d", server, "-x", "0", "-F", "-p", port}, extra);
        String[] c = LoopbackTest.concat(LoopbackTest.concat(new String[] {"-d", client, "-x", "0", "-F", "-p", port}, extra),
                new String[] {rdmaCm ? net + "2" : "127.0.0.1"});
        Side sv = Side.server(tool, core, cm, s);
        Side cl = Side.start(tool, core, cm, c);
        int cs = cl.await(120);
        int ss = sv.await(60);
        assertEquals(0, cs, "client: " + cl.err() + cl.out());
        assertEquals(0, ss, "server: " + sv.err() + sv.out());
        return new Side[] {sv, cl};
    }

    static void sameData(Side[] s, int size, boolean clientToServer) {
        byte[] sb = s[0].buffer.get();
        byte[] cb = s[1].buffer.get();
        int half = sb.length / 2;
        for (int i = 0; i < size; i++) {
            if (clientToServer) {
                assertEquals(cb[i], sb[half + i], "byte " + i);
            } else {
                assertEquals(sb[half + i], cb[i], "byte " + i);
            }
        }
    }

    @Test
    void writeBw() throws Exception {
        Side[] s = pair("ib_write_bw", false, "-n", "1000", "-s", "65536");
        for (Side side : s) {
            String out = side.out();
            assertTrue(out.contains(" Link type       : Ethernet\n GID index       : 0\n"), out);
            assertTrue(out.contains(" GID: 00:00:00:00:00:00:00:00:00:00:255:255:127:"), out);
            assertTrue(out.contains(" local address: LID 0000 QPN 0x"), out);
            assertTrue(LoopbackTest.last(out, 2).startsWith(" 65536      1000 "), out);
        }
        sameData(s, 65536, true);
    }

    @Test
    void readBwAndSendBw() throws Exception {
        Side[] r = pair("ib_read_bw", false, "-n", "200", "-s", "16384");
        sameData(r, 16384, false);
        port = Integer.toString(Side.freePort());
        Side[] s = pair("ib_send_bw", false, "-n", "200", "-s", "4096");
        sameData(s, 4096, true);
    }

    @Test
    void latencies() throws Exception {
        for (String tool : new String[] {"ib_write_lat", "ib_send_lat", "ib_read_lat", "ib_atomic_lat"}) {
            port = Integer.toString(Side.freePort());
            Side[] s = pair(tool, false, "-n", "200");
            assertEquals(1, LoopbackTest.rows(s[1].out(), LoopbackTest.LAT_ROW).size(), tool + s[1].out());
        }
    }

    @Test
    void atomicBw() throws Exception {
        Side[] s = pair("ib_atomic_bw", false, "-n", "100");
        assertTrue(LoopbackTest.last(s[1].out(), 2).startsWith(" 8          100 "), s[1].out());
    }

    @Test
    void sendBwOverRdmaCm() throws Exception {
        Side[] s = pair("ib_send_bw", true, "-R", "-n", "100", "-s", "64");
        assertTrue(s[0].out().contains(" rdma_cm QPs\t : ON\n Data ex. method : rdma_cm\n" + LoopbackTest.DASHES
                + "\n Waiting for client rdma_cm QP to connect\n Please run the same command with the IB/RoCE interface IP\n"),
                s[0].out());
        assertTrue(LoopbackTest.last(s[1].out(), 2).startsWith(" 64         100 "), s[1].out());
        sameData(s, 64, true);
    }

    @Test
    void writeBwOverRdmaCm() throws Exception {
        Side[] s = pair("ib_write_bw", true, "-R", "-n", "100", "-s", "8192");
        assertTrue(LoopbackTest.last(s[0].out(), 2).startsWith(" 8192       100 "), s[0].out());
        sameData(s, 8192, true);
    }

    /** Both sides' output line by line against Linux perftest's log of the same run, numbers and names masked. */
    @Test
    void outputAsTheLinuxLog() throws Exception {
        String[][] cases = {{"write_bw_64", "ib_write_bw", "-s", "64"}, {"read_bw_16k", "ib_read_bw", "-s", "16384"},
            {"send_bw", "ib_send_bw", "-s", "64"}, {"atomic_fadd", "ib_atomic_bw", "-A", "FETCH_AND_ADD"},
            {"write_lat", "ib_write_lat", "-s", "64"}, {"send_lat", "ib_send_lat", "-s", "64"}};
        for (String[] c : cases) {
            port = Integer.toString(Side.freePort());
            Side[] s = pair(c[1], false, "-n", "5", c[2], c[3]);
            String log = java.nio.file.Files.readString(TestVectors.path("roce/" + c[0] + ".log"));
            String serverLog = log.substring(log.indexOf("# --- server output\n") + 20, log.indexOf("# --- client output\n"));
            String clientLog = log.substring(log.indexOf("# --- client output\n") + 20);
            // the logs interleave stderr: perftest's inline warning for READ and atomics
            String warning = "Device not recognized to implement inline feature. Disabling it\n";
            if (serverLog.contains(warning)) {
                assertTrue(s[0].err().contains(warning), s[0].err());
                assertTrue(s[1].err().contains(warning), s[1].err());
            }
            assertEquals(mask(serverLog.replace(warning, "")), mask(s[0].out()), c[0] + " server");
            assertEquals(mask(clientLog.replace(warning, "")), mask(s[1].out()), c[0] + " client");
        }
    }

    /** Numbers to 9, device names to DEV; the MTU and GID index differ between the guest's veth and lo. */
    static String mask(String out) {
        return out.replaceAll("Device         : \\S+", "Device         : DEV")
                .replaceAll("PCIe relax order: \\S+", "PCIe relax order: X")
                .replaceAll("0x[0-9a-f]+", "0x9")
                .replaceAll("\\d+(\\.\\d+)?", "9")
                .replaceAll(" +", " ")
                .replaceAll(" \n", "\n")
                .replaceAll(" (\\t)", "$1");
    }
}
