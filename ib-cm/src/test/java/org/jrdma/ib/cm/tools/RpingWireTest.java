package org.jrdma.ib.cm.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.core.cli.CommandFailure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wire protocol against hand-written peers that do what Linux rping does, step by step, on the
 * verbs (not with {@link Rping}'s code): the 16-byte {@code struct rping_rdma_info} in network byte
 * order, who READs and who WRITEs what, the order of the SENDs; and a peer that vanishes.
 */
@Timeout(60)
class RpingWireTest extends RpingFixture {
    final IbClient ulp = new IbClient() {
        public String name() {
            return "peer";
        }

        public void add(IbDevice device) {
        }

        public void remove(IbDevice device, Object data) {
        }
    };

    /** A hand-made connection end: its events, PD, CQ, QP and one 64 KiB buffer. */
    final class Peer implements AutoCloseable {
        final LinkedBlockingQueue<RdmaCmEvent> events = new LinkedBlockingQueue<>();
        RdmaCmId id;
        RdmaCmId listenId;
        ProtectionDomain pd;
        CompletionQueue cq;
        QueuePair qp;
        ByteBuffer buf = ByteBuffer.allocateDirect(65536);
        MemoryRegion mr;

        RdmaCmEvent next(RdmaCmEventType type) throws InterruptedException {
            RdmaCmEvent e = events.poll(10, TimeUnit.SECONDS);
            assertTrue(e != null, "no " + type);
            assertEquals(type, e.type(), e.toString());
            return e;
        }

        void setUp(RdmaCmId on) {
            id = on;
            IbDevice dev = on.device();
            pd = dev.allocPd(ulp);
            cq = dev.createCq(ulp, new CqInitAttr().cqe(32));
            qp = on.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(cq)
                    .cap(new QpCap().maxSendWr(16).maxRecvWr(4).maxSendSge(1).maxRecvSge(1)));
            mr = pd.regMr(buf.duplicate(), Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
        }

        void postRecv(int offset) {
            qp.postRecv(new RecvWr().wrId(offset).sgList(new Sge(mr.iova() + offset, 16, mr.lkey())));
        }

        void send(int offset, int len) {
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(mr.iova() + offset, len, mr.lkey())));
        }

        WorkCompletion poll() throws InterruptedException {
            WorkCompletion[] wc = {new WorkCompletion()};
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (cq.poll(wc) == 0) {
                assertTrue(System.nanoTime() < deadline, "no completion");
                Thread.sleep(0, 100_000);
            }
            return wc[0];
        }

        WorkCompletion pollFor(WcOpcode op) throws InterruptedException {
            while (true) {
                WorkCompletion w = poll();
                assertEquals(WcStatus.SUCCESS, w.status(), w.toString());
                if (w.opcode() == op) {
                    return w;
                }
            }
        }

        @Override
        public void close() {
            if (qp != null) {
                id.destroyQp();
            }
            if (mr != null) {
                mr.dereg();
            }
            if (cq != null) {
                cq.destroy();
            }
            if (pd != null) {
                pd.dealloc();
            }
            if (id != null) {
                id.close();
            }
            if (listenId != null) {
                listenId.close();
            }
        }
    }

    /** Linux rping's server side, by hand, against a jrdma rping client. */
    @Test
    void theClientSpeaksLinuxRping() throws Exception {
        try (Peer srv = new Peer()) {
            srv.listenId = cm.createId((id, e) -> {
                srv.events.add(e);
                return 0;
            }, RdmaPortSpace.TCP);
            srv.listenId.bindAddr(new InetSocketAddress(SERVER_IP, Rping.PORT));
            srv.listenId.listen(3);

            Side c = client("-c", "-a", SERVER_IP, "-I", CLIENT_IP, "-C", "2", "-S", "100", "-V", "-v");
            RdmaCmEvent req = srv.next(RdmaCmEventType.CONNECT_REQUEST);
            assertEquals(1, req.param().responderResources());
            assertEquals(1, req.param().initiatorDepth());
            assertEquals(7, req.param().retryCount());
            assertEquals(7, req.param().rnrRetryCount());
            assertEquals(0, req.param().flowControl(), "rping's conn_param is memset 0: no flow control");
            srv.setUp(req.id());
            srv.postRecv(0);
            srv.id.accept(new RdmaConnParam());
            srv.next(RdmaCmEventType.ESTABLISHED);

            for (int ping = 0; ping < 2; ping++) {
                // 1: the client SENDs its start buffer: be64 addr, be32 rkey, be32 size
                WorkCompletion w = srv.pollFor(WcOpcode.RECV);
                assertEquals(16, w.byteLen());
                long addr = srv.buf.getLong(0);
                int rkey = srv.buf.getInt(8);
                assertEquals(100, srv.buf.getInt(12), "size in network byte order");
                srv.postRecv(0);
                // 2: the server RDMA READs size bytes from it
                srv.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(srv.mr.iova() + 1024, 100, srv.mr.lkey())).remote(addr, rkey));
                srv.pollFor(WcOpcode.RDMA_READ);
                byte[] got = new byte[100];
                srv.buf.get(1024, got);
                String expected = pingString(ping, 100) + "\0";
                assertEquals(expected, new String(got, StandardCharsets.ISO_8859_1));
                // 3: go-ahead: 16 zero bytes
                srv.buf.put(512, new byte[16]);
                srv.send(512, 16);
                // 4: the client SENDs its RDMA buffer
                w = srv.pollFor(WcOpcode.RECV);
                assertEquals(16, w.byteLen());
                long sink = srv.buf.getLong(0);
                int sinkKey = srv.buf.getInt(8);
                assertEquals(100, srv.buf.getInt(12));
                assertTrue(sink != addr, "a different buffer");
                srv.postRecv(0);
                // 5: the server RDMA WRITEs strlen + 1 bytes back, then 6: go-ahead
                srv.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(srv.mr.iova() + 1024, 100, srv.mr.lkey())).remote(sink, sinkKey));
                srv.pollFor(WcOpcode.RDMA_WRITE);
                srv.send(512, 16);
            }
            assertEquals(0, c.await(20), c.err());
            assertEquals("ping data: " + pingString(0, 100) + "\nping data: " + pingString(1, 100) + "\n", c.out());
            srv.next(RdmaCmEventType.DISCONNECTED);
        }
    }

    /** A jrdma rping server against Linux rping's client side, by hand; the client then disconnects. */
    @Test
    void theServerSpeaksLinuxRping() throws Exception {
        Side s = server("-s", "-a", SERVER_IP, "-v");
        try (Peer cli = new Peer()) {
            RdmaCmId id = cm.createId((i, e) -> {
                cli.events.add(e);
                return 0;
            }, RdmaPortSpace.TCP);
            cli.id = id;
            id.resolveAddr(new InetSocketAddress(CLIENT_IP, 0), new InetSocketAddress(SERVER_IP, Rping.PORT), 2000);
            cli.next(RdmaCmEventType.ADDR_RESOLVED);
            id.resolveRoute(2000);
            cli.next(RdmaCmEventType.ROUTE_RESOLVED);
            cli.setUp(id);
            cli.postRecv(0);
            id.connect(new RdmaConnParam().flowControl(0));
            cli.next(RdmaCmEventType.ESTABLISHED);

            String ping = pingString(0, 64);
            cli.buf.put(4096, (ping + "\0").getBytes(StandardCharsets.ISO_8859_1));
            cli.buf.putLong(16, cli.mr.iova() + 4096).putInt(24, cli.mr.rkey()).putInt(28, 64);
            cli.send(16, 16);
            WorkCompletion w = cli.pollFor(WcOpcode.RECV);
            assertEquals(16, w.byteLen());
            byte[] zeros = new byte[16];
            cli.buf.get(0, zeros);
            assertEquals(16, countZeros(zeros), "the go-ahead is 16 zero bytes");
            cli.postRecv(0);
            cli.buf.putLong(16, cli.mr.iova() + 8192).putInt(24, cli.mr.rkey()).putInt(28, 64);
            cli.send(16, 16);
            cli.pollFor(WcOpcode.RECV);
            byte[] back = new byte[64];
            cli.buf.get(8192, back);
            assertEquals(ping + "\0", new String(back, StandardCharsets.ISO_8859_1), "strlen + 1 bytes written back");
            id.disconnect();
            cli.next(RdmaCmEventType.DISCONNECTED);
        }
        assertEquals(0, s.await(20), s.err());
        assertEquals("server ping data: " + pingString(0, 64) + "\n", s.out());
        assertEquals("server DISCONNECT EVENT...\nwait for RDMA_READ_ADV state 10\n", s.err());
    }

    private static int countZeros(byte[] b) {
        int n = 0;
        for (byte x : b) {
            n += x == 0 ? 1 : 0;
        }
        return n;
    }

    /**
     * The client's host vanishes (no DREQ) right after it advertised its buffer: the server's RDMA
     * READ or go-ahead finds nobody, the transport gives up after its retries, and the server fails
     * as rping does instead of waiting forever. (Had the go-ahead been received before, the server
     * would wait for the next advert forever, as rping.c does: it has no keepalive.)
     */
    @Test
    void aVanishedClientFailsTheServer() throws Exception {
        Side s = server("-s", "-a", SERVER_IP);
        try (Peer cli = new Peer()) {
            RdmaCmId id = cm.createId((i, e) -> {
                cli.events.add(e);
                return 0;
            }, RdmaPortSpace.TCP);
            cli.id = id;
            id.resolveAddr(null, new InetSocketAddress(SERVER_IP, Rping.PORT), 2000);
            cli.next(RdmaCmEventType.ADDR_RESOLVED);
            id.resolveRoute(2000);
            cli.next(RdmaCmEventType.ROUTE_RESOLVED);
            cli.setUp(id);
            // no receive for the go-ahead: the server's SEND waits in RNR until the client is gone
            id.connect(new RdmaConnParam().flowControl(0));
            cli.next(RdmaCmEventType.ESTABLISHED);
            cli.buf.putLong(16, cli.mr.iova() + 4096).putInt(24, cli.mr.rkey()).putInt(28, 64);
            cli.send(16, 16);
            cli.pollFor(WcOpcode.SEND); // the advert arrived (before it, the server would wait forever, as rping.c)
            cli.qp.modify(new QpAttr().state(QpState.ERR)); // gone, without a word

            assertEquals(255, s.await(20), s.err());
            assertTrue(Pattern.compile("^cq completion failed status 12\nwait for RDMA_(READ_COMPLETE|WRITE_ADV) "
                    + "state 11\nrping server failed: -1\n").matcher(s.err()).find(), s.err());
        }
    }

    /** The Gogo entry point: a failure is a CommandFailure with rping's stderr text and status. */
    @Test
    void executeThrowsTheFailure() {
        CommandFailure f = org.junit.jupiter.api.Assertions.assertThrows(CommandFailure.class,
                () -> Rping.execute(cm, System.out, System.err, "-c", "-a", SERVER_IP, "-C", "1"));
        assertEquals(255, f.exitStatus());
        assertEquals("cma event RDMA_CM_EVENT_REJECTED, error 8\nwait for CONNECTED state 4\nconnect error -1",
                f.getMessage());
    }
}
