package org.jrdma.ulp.iser.target;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.conn.IserConnectionHandler;
import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.login.InitiatorLogin;
import org.jrdma.ulp.iser.login.InitiatorLoginParams;
import org.jrdma.ulp.iser.login.InitiatorLogins;
import org.jrdma.ulp.iser.login.LoginStep;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiHeader;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.TaskAttribute;

/**
 * A small initiator that speaks PDUs by hand (what ib_iser + libiscsi put on the wire), for the target tests:
 * one connection over any {@link IserTransport} ({@link MemoryTransport}, or the RDMA one), received PDUs
 * queued, CmdSN and ITT counted.
 */
public final class ScriptedInitiator implements IserConnectionHandler, AutoCloseable {
    public static final String INITIATOR = "iqn.2026-12.org.jrdma:init1";
    public static final String TARGET = "iqn.2026-12.org.jrdma:t1";
    static final long ISID = 0x023d_0000_0001L;
    public static final int BLOCK = 512;

    private final BlockingQueue<IserPdu> received = new LinkedBlockingQueue<>();
    private final CountDownLatch down = new CountDownLatch(1);
    private final IserConnection conn;
    int cmdSn = 1;
    int itt = 0x10;
    /** The StatSN of the final Login Response: the first full-feature status carries the next one. */
    public int loginStatSn;

    public ScriptedInitiator(IserTransport transport, InetSocketAddress portal) throws Exception {
        conn = transport.connect(portal, this).toCompletableFuture().get(15, TimeUnit.SECONDS);
    }

    @Override
    public void onPdu(IserConnection c, IserPdu pdu) {
        received.add(pdu);
    }

    @Override
    public void onDisconnected(IserConnection c, String reason) {
        down.countDown();
    }

    IserConnection connection() {
        return conn;
    }

    /**
     * Logs in with the login package's initiator side (open-iscsi's iSER proposals): Login Requests until the
     * final response or a failure; returns the last Login Response. Discovery when {@code target} is null.
     */
    public LoginResponse login(String initiator, String target, long isid, int tsih) throws Exception {
        InitiatorLoginParams p = target == null ? InitiatorLoginParams.discovery(initiator, isid)
                : InitiatorLoginParams.normal(initiator, target, isid);
        p = new InitiatorLoginParams(p.initiatorName(), null, p.targetName(), p.sessionType(), isid, tsih, cmdSn,
                null, p.proposals());
        InitiatorLogin login = InitiatorLogins.create(p);
        IscsiPdu request = login.start();
        while (true) {
            send(IserHeader.CONTROL, request.header(), request.data());
            IserPdu pdu = next();
            LoginResponse rsp = (LoginResponse) pdu.pdu().header();
            LoginStep step = login.onResponse(pdu.pdu());
            if (step.state() != LoginStep.State.CONTINUE) {
                loginStatSn = rsp.sn().statSn();
                itt = rsp.itt() + 1;
                return rsp;
            }
            request = step.reply();
        }
    }

    public LoginResponse login() throws Exception {
        return login(INITIATOR, TARGET, ISID, 0);
    }

    public void send(IserHeader iser, IscsiHeader header, byte[] data) {
        try {
            conn.send(new IserPdu(iser, new IscsiPdu(header, data)));
        } catch (RejectedExecutionException e) {
            // MemoryTransport: the target side closed a moment ago (the SEND would flush on a real QP)
        }
    }

    void send(IscsiHeader header) {
        send(IserHeader.CONTROL, header, new byte[0]);
    }

    /** The next PDU the target sent, within 5 s. */
    public IserPdu next() throws InterruptedException {
        IserPdu pdu = received.poll(5, TimeUnit.SECONDS);
        assertNotNull(pdu, "no PDU from the target within 5 s");
        return pdu;
    }

    public <T extends IscsiHeader> T next(Class<T> type) throws InterruptedException {
        IserPdu pdu = next();
        assertEquals(type, pdu.pdu().header().getClass(), () -> "got " + pdu.pdu().header());
        return type.cast(pdu.pdu().header());
    }

    /** No PDU arrives within {@code millis}. */
    void expectSilence(long millis) throws InterruptedException {
        IserPdu pdu = received.poll(millis, TimeUnit.MILLISECONDS);
        assertEquals(null, pdu, () -> "unexpected " + pdu.pdu().header());
    }

    /** PDUs received and not yet taken. */
    int pending() {
        return received.size();
    }

    boolean disconnected() {
        return down.getCount() == 0;
    }

    public void awaitDisconnect() throws InterruptedException {
        assertTrue(down.await(5, TimeUnit.SECONDS), "connection still up after 5 s");
    }

    public IserBuffer buffer(int length) {
        return conn.buffers().allocate(length);
    }

    public ScsiCommand command(boolean read, boolean write, int edtl, byte[] cdb) {
        byte[] field = new byte[ScsiCommand.CDB_LENGTH];
        System.arraycopy(cdb, 0, field, 0, cdb.length);
        return new ScsiCommand(false, true, read, write, TaskAttribute.SIMPLE, 0, itt++, edtl,
                new InitiatorSn(cmdSn++, 0), field);
    }

    /** A data-in command: the target RDMA-WRITEs into {@code into}. */
    public ScsiCommand read(byte[] cdb, int edtl, IserBuffer into) {
        ScsiCommand c = command(true, false, edtl, cdb);
        send(new IserHeader(false, true, 0, 0, into.rkey(), into.va()), c, new byte[0]);
        return c;
    }

    /**
     * A data-out command: {@code immediate} bytes of {@code from} as immediate data, the rest for the target to
     * RDMA-READ at the write VA, which (as Linux's initiator does) already points past the immediate data.
     */
    public ScsiCommand write(byte[] cdb, int edtl, IserBuffer from, int immediate) {
        ScsiCommand c = command(false, true, edtl, cdb);
        byte[] imm = new byte[immediate];
        from.buffer().get(imm);
        send(new IserHeader(true, false, from.rkey(), from.va() + immediate, 0, 0), c, imm);
        return c;
    }

    /** A command without data. */
    public ScsiCommand noData(byte[] cdb) {
        ScsiCommand c = command(false, false, 0, cdb);
        send(IserHeader.CONTROL, c, new byte[0]);
        return c;
    }

    public static byte[] read10(int lba, int blocks) {
        return rw10(0x28, lba, blocks);
    }

    public static byte[] write10(int lba, int blocks) {
        return rw10(0x2a, lba, blocks);
    }

    private static byte[] rw10(int op, int lba, int blocks) {
        return ByteBuffer.allocate(10).put((byte) op).put((byte) 0).putInt(lba).put((byte) 0)
                .putShort((short) blocks).put((byte) 0).array();
    }

    public static byte[] inquiry(int allocation) {
        return new byte[] {0x12, 0, 0, (byte) (allocation >> 8), (byte) allocation, 0};
    }

    public static byte[] readCapacity10() {
        return new byte[] {0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    }

    @Override
    public void close() {
        conn.close();
    }
}
