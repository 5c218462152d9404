package org.jrdma.ulp.iser.initiator;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.ulp.iser.conn.IserBuffer;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.conn.IserConnectionHandler;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.login.LoginStep;
import org.jrdma.ulp.iser.login.TargetLogin;
import org.jrdma.ulp.iser.login.TargetLoginPolicy;
import org.jrdma.ulp.iser.login.TargetLogins;
import org.jrdma.ulp.iser.pdu.IscsiHeader;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LoginRequest;
import org.jrdma.ulp.iser.pdu.LogoutRequest;
import org.jrdma.ulp.iser.pdu.LogoutResponse;
import org.jrdma.ulp.iser.pdu.NopIn;
import org.jrdma.ulp.iser.pdu.NopOut;
import org.jrdma.ulp.iser.pdu.ScsiCommand;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.jrdma.ulp.iser.pdu.TextRequest;
import org.jrdma.ulp.iser.pdu.TextResponse;

/**
 * A small iSER target for the initiator's tests (login by the login package, then scripted): one LUN 0 ramdisk of
 * 512-byte blocks, READ(16)/WRITE(16) with RDMA WRITE/READ against the initiator's STags, REPORT LUNS, INQUIRY,
 * READ CAPACITY(16), SYNCHRONIZE CACHE, out-of-range LBAs as ILLEGAL REQUEST/LBA OUT OF RANGE; NOP-In answers,
 * Logout; a command window of {@code window} commands whose violations it counts.
 */
final class ScriptedTarget implements AutoCloseable {
    static final int BLOCK = 512;
    final List<IserConnection> connections = new CopyOnWriteArrayList<>();
    final List<LoginRequest> logins = new CopyOnWriteArrayList<>();
    final AtomicInteger windowViolations = new AtomicInteger();
    final AtomicInteger commands = new AtomicInteger();
    final AtomicInteger nopOuts = new AtomicInteger();
    /** TTTs of NOP-Outs that answered a target ping (ITT 0xffffffff). */
    final List<Integer> pingAnswers = new CopyOnWriteArrayList<>();
    final AtomicInteger immediateBytes = new AtomicInteger();
    volatile boolean answerPings = true;
    volatile boolean acceptLogins = true;
    /** False: READ/WRITE commands are swallowed (a hung LUN). */
    volatile boolean answerIo = true;
    /** When set, Text Requests are answered with a Reject of this reason (LIO's answer to one it refuses). */
    volatile org.jrdma.ulp.iser.pdu.RejectReason rejectText;
    private final byte[] disk;
    private final int window;
    private final MemoryTransport.IserListener listener;
    private final InetSocketAddress portal;
    private final AtomicInteger tsih = new AtomicInteger(1);

    ScriptedTarget(MemoryTransport fabric, InetSocketAddress portal, long size, int window) {
        this.portal = portal;
        this.disk = new byte[(int) size];
        this.window = window;
        this.listener = fabric.listen(portal, c -> {
            connections.add(c);
            c.handler(new Conn());
        });
    }

    /** Drops every connection, as a cable pull would. */
    void dropAll() {
        connections.forEach(IserConnection::close);
        connections.clear();
    }

    /** The target's own ping (NOP-In with a TTT, ITT reserved) on every connection. */
    void ping(int ttt) {
        for (IserConnection c : connections) {
            c.send(new IserPdu(IserHeader.CONTROL, new IscsiPdu(new NopIn(0, 0xffffffff, ttt,
                    new TargetSn(0, 0, 0)), new byte[0])));
        }
    }

    /** An Asynchronous Message with AsyncEvent {@code event} on every connection. */
    void asyncEvent(int event) {
        byte[] bhs = new byte[48];
        bhs[0] = 0x32;
        bhs[1] = (byte) 0x80;
        java.util.Arrays.fill(bhs, 16, 20, (byte) 0xff);
        bhs[36] = (byte) event;
        for (IserConnection c : connections) {
            c.send(new IserPdu(IserHeader.CONTROL, new IscsiPdu(new org.jrdma.ulp.iser.pdu.OtherHeader(
                    org.jrdma.ulp.iser.pdu.IscsiOpcode.ASYNC_EVENT, bhs), new byte[0])));
        }
    }

    byte[] disk() {
        return disk;
    }

    @Override
    public void close() {
        listener.close();
        dropAll();
    }

    /** Two targets on TPG 1, any initiator, no CHAP; none found while {@link #acceptLogins} is false. */
    private final class Policy implements TargetLoginPolicy {
        @Override
        public Optional<Integer> portalGroupTag(String targetName) {
            return acceptLogins && targetName.startsWith("iqn.2003-01.org.example:t") ? Optional.of(1)
                    : Optional.empty();
        }

        @Override
        public boolean allows(String initiatorName, String targetName) {
            return true;
        }

        @Override
        public Optional<String[]> chap(String initiatorName, String targetName) {
            return Optional.empty();
        }

        @Override
        public int allocateTsih() {
            return tsih.getAndIncrement();
        }

        @Override
        public List<String[]> sendTargets(String initiatorName) {
            return List.of(new String[] {"TargetName", "iqn.2003-01.org.example:t1"},
                    new String[] {"TargetAddress", "192.0.2.11:3260,1"},
                    new String[] {"TargetName", "iqn.2003-01.org.example:t2"});
        }
    }

    private final class Conn implements IserConnectionHandler {
        TargetLogin login;
        int statSn;
        int expCmdSn;
        /** The highest MaxCmdSN this connection told the initiator. */
        int advertisedMax;

        TargetSn sn(boolean advance) {
            advertisedMax = expCmdSn + window - 1;
            return new TargetSn(advance ? statSn++ : statSn, expCmdSn, advertisedMax);
        }

        @Override
        public void onPdu(IserConnection c, IserPdu pdu) {
            IscsiHeader h = pdu.pdu().header();
            if (h instanceof LoginRequest r) {
                login(c, r, pdu.pdu());
            } else if (h instanceof TextRequest t && rejectText != null) {
                send(c, new org.jrdma.ulp.iser.pdu.Reject(rejectText, sn(true), 0), new byte[48]);
            } else if (h instanceof TextRequest t) {
                expCmdSn = t.sn().cmdSn() + 1;
                TextKeys keys = TextKeys.of("TargetName", "iqn.2003-01.org.example:t1", "TargetAddress",
                        "192.0.2.11:3260,1", "TargetName", "iqn.2003-01.org.example:t2");
                send(c, new TextResponse(true, false, 0, t.itt(), 0xffffffff, sn(true)), keys.encode());
            } else if (h instanceof NopOut n) {
                nopOuts.incrementAndGet();
                if (n.itt() == 0xffffffff) {
                    pingAnswers.add(n.ttt());
                }
                if (answerPings && n.itt() != 0xffffffff) {
                    send(c, new NopIn(n.lun(), n.itt(), 0xffffffff, sn(true)), new byte[0]);
                }
            } else if (h instanceof LogoutRequest l) {
                send(c, new LogoutResponse(0, l.itt(), sn(true), 0, 0), new byte[0]);
            } else if (h instanceof ScsiCommand cmd) {
                command(c, cmd, pdu);
            }
        }

        /** The login package's target negotiation (LIO's): this fixture only does the full feature phase. */
        private void login(IserConnection c, LoginRequest r, IscsiPdu pdu) {
            if (login == null) {
                logins.add(r);
                login = TargetLogins.create(new Policy(), portal);
            }
            LoginStep step = login.onRequest(pdu);
            if (step.reply() != null) {
                c.send(new IserPdu(IserHeader.CONTROL, step.reply()));
            }
            if (step.state() == LoginStep.State.FULL_FEATURE) {
                expCmdSn = step.params().expCmdSn();
                statSn = step.params().statSn() + 1;
                advertisedMax = expCmdSn;
            }
        }

        private void command(IserConnection c, ScsiCommand cmd, IserPdu pdu) {
            commands.incrementAndGet();
            if (cmd.sn().cmdSn() - advertisedMax > 0) {
                windowViolations.incrementAndGet();
            }
            expCmdSn = cmd.sn().cmdSn() + 1;
            byte[] cdb = cmd.cdb();
            ByteBuffer b = ByteBuffer.wrap(cdb);
            switch (cdb[0] & 0xff) {
                case 0xa0 -> dataIn(c, cmd, pdu, ByteBuffer.allocate(16).putInt(0, 8).array());
                case 0x12 -> dataIn(c, cmd, pdu, new byte[36]);
                case 0x9e -> dataIn(c, cmd, pdu, ByteBuffer.allocate(32).putLong(0, disk.length / BLOCK - 1)
                        .putInt(8, BLOCK).array());
                case 0x35 -> status(c, cmd, ScsiResponse.GOOD, new byte[0]);
                case 0x88, 0x8a -> {
                    if (answerIo) {
                        rw(c, cmd, pdu, b.getLong(2), b.getInt(10));
                    }
                }
                default -> checkCondition(c, cmd, 0x20);
            }
        }

        private void rw(IserConnection c, ScsiCommand cmd, IserPdu pdu, long lba, int blocks) {
            if (lba + blocks > disk.length / BLOCK) {
                checkCondition(c, cmd, 0x21);
                return;
            }
            int off = (int) lba * BLOCK;
            int len = blocks * BLOCK;
            IserHeader iser = pdu.iser();
            try (IserBuffer buf = c.buffers().allocate(len)) {
                if (cmd.write()) {
                    byte[] imm = pdu.pdu().data();
                    immediateBytes.addAndGet(imm.length);
                    buf.buffer().put(imm);
                    if (imm.length < len) {
                        c.rdmaRead(buf, imm.length, len - imm.length, iser.writeStag(), iser.writeVa())
                                .toCompletableFuture().join();
                    }
                    buf.buffer().get(disk, off, len);
                } else {
                    buf.buffer().put(disk, off, len);
                    c.rdmaWrite(buf, 0, len, iser.readStag(), iser.readVa()).toCompletableFuture().join();
                }
            }
            status(c, cmd, ScsiResponse.GOOD, new byte[0]);
        }

        private void dataIn(IserConnection c, ScsiCommand cmd, IserPdu pdu, byte[] data) {
            int n = Math.min(data.length, cmd.edtl());
            try (IserBuffer buf = c.buffers().allocate(n)) {
                buf.buffer().put(data, 0, n);
                c.rdmaWrite(buf, 0, n, pdu.iser().readStag(), pdu.iser().readVa()).toCompletableFuture().join();
            }
            int residual = cmd.edtl() - n;
            send(c, new ScsiResponse(false, false, false, residual > 0, 0, ScsiResponse.GOOD, cmd.itt(), 0,
                    sn(true), 0, 0, residual), new byte[0]);
        }

        private void checkCondition(IserConnection c, ScsiCommand cmd, int asc) {
            byte[] sense = new byte[20];
            sense[1] = 18;
            sense[2] = 0x70;
            sense[2 + 2] = 0x05;
            sense[2 + 7] = 10;
            sense[2 + 12] = (byte) asc;
            status(c, cmd, ScsiResponse.CHECK_CONDITION, sense);
        }

        private void status(IserConnection c, ScsiCommand cmd, int status, byte[] sense) {
            send(c, new ScsiResponse(false, false, false, false, 0, status, cmd.itt(), 0, sn(true), 0, 0, 0), sense);
        }

        private void send(IserConnection c, IscsiHeader h, byte[] data) {
            c.send(new IserPdu(IserHeader.CONTROL, new IscsiPdu(h, data)));
        }

        @Override
        public void onDisconnected(IserConnection c, String reason) {
            connections.remove(c);
        }
    }
}
