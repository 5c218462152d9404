package org.jrdma.ulp.iser.initiator;

import static org.jrdma.ulp.iser.initiator.TestIo.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.conn.IserConnectionHandler;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.TaskAttribute;
import org.junit.jupiter.api.Test;

/**
 * The SCSI Command PDUs the initiator builds, against what ib_iser sends in the iser_session capture (frame 236:
 * a 64 KiB WRITE with flags 0x18 = WSV, 8192 bytes of immediate data, the write VA past them; frame 305: a READ
 * with flags 0x14 = RSV and the read STag/VA of the whole buffer).
 */
class IserTaskTest {
    /** What open-iscsi and LIO negotiated in the capture: ImmediateData=Yes, FirstBurstLength 65536, TRDSL 8192. */
    static final SessionParams LINUX = new SessionParams(SessionParams.SessionType.NORMAL, "i", null, "t", null,
            0x00023d000002L, 1, 1, true, false, true, 262144, 65536, 1, 262144, 8192, 0, 1, 0, 2, 0, true, true, 0,
            0);

    static IserConnection connection(MemoryTransport fabric) {
        InetSocketAddress portal = new InetSocketAddress("192.0.2.9", 3260);
        fabric.listen(portal, c -> { });
        IserConnectionHandler none = new IserConnectionHandler() {
            @Override public void onPdu(IserConnection conn, IserPdu pdu) { }
            @Override public void onDisconnected(IserConnection conn, String reason) { }
        };
        return fabric.connect(portal, none).toCompletableFuture().join();
    }

    @Test
    void writeOf64KibIsWsvWithEightKibImmediateAndTheVaPastIt() {
        try (MemoryTransport fabric = new MemoryTransport()) {
            IserConnection conn = connection(fabric);
            byte[] data = pattern(65536, 236);
            IserTask t = IserTask.dataOut(0, ScsiCdb.write16(2048, 128), ByteBuffer.wrap(data));
            t.attach(conn);
            IserPdu pdu = t.command(LINUX, 0x26000000, new InitiatorSn(0x25, 0x5b9c646b));
            assertEquals(0x18, pdu.iser().flags(), "iSER opcode 1, WSV, as ib_iser's");
            ScsiCommand cmd = (ScsiCommand) pdu.pdu().header();
            assertTrue(cmd.fin() && cmd.write() && !cmd.read() && !cmd.immediate());
            assertEquals(TaskAttribute.SIMPLE, cmd.attr());
            assertEquals(65536, cmd.edtl());
            assertEquals(0, cmd.lun());
            assertArrayEquals(Arrays.copyOf(data, 8192), pdu.pdu().data(), "the first 8 KiB as immediate data");
            assertEquals(1, fabric.buffersInUse());
            long base = pdu.iser().writeVa() - 8192;
            assertEquals(0, base % 4096, "the write VA is the buffer's past the immediate data");
            t.release();
            assertEquals(0, fabric.buffersInUse());
        }
    }

    @Test
    void readIsRsvWithTheWholeBufferAndAWriteThatFitsIsImmediateOnly() {
        try (MemoryTransport fabric = new MemoryTransport()) {
            IserConnection conn = connection(fabric);
            IserTask read = IserTask.dataIn(0, ScsiCdb.read16(0, 8), ByteBuffer.allocate(4096), true);
            read.attach(conn);
            IserPdu r = read.command(LINUX, 1, new InitiatorSn(1, 1));
            assertEquals(0x14, r.iser().flags(), "iSER opcode 1, RSV");
            assertEquals(0, r.pdu().data().length);
            IserTask small = IserTask.dataOut(0, ScsiCdb.write16(0, 8), ByteBuffer.wrap(pattern(4096, 1)));
            small.attach(conn);
            IserPdu w = small.command(LINUX, 2, new InitiatorSn(2, 1));
            assertEquals(0x10, w.iser().flags(), "all of it immediate: no STag advertised");
            assertEquals(4096, w.pdu().data().length);
        }
    }
}
