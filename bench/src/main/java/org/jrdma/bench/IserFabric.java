package org.jrdma.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.impl.RdmaCmService;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.conn.IserConnectionConfig;
import org.jrdma.ulp.iser.conn.RdmaIserTransport;
import org.jrdma.ulp.iser.initiator.IserInitiatorService;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;
import org.jrdma.ulp.iser.scsi.ScsiLun;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.jrdma.ulp.iser.target.PortalGroup;
import org.jrdma.ulp.iser.target.TargetDirectory;

/**
 * The whole iSER stack in this JVM, as {@code iscsiadm --login} against {@code targetcli} with a ramdisk LUN
 * would build it: two hw-rxe devices on 127.X.Y.1 (initiator) and .2 (target) over real UDP, the MAD layer and
 * RDMA CM, an {@link RdmaIserTransport} on each side, the target runtime with one memory-backed LUN 0 and the
 * initiator service logged in to it. The LUN is written once over its whole length first, so READs copy real
 * chunks rather than the ramdisk's shared zeros.
 */
final class IserFabric implements AutoCloseable {
    static final String IQN = "iqn.2026-12.org.jrdma:bench";
    static final int BLOCK = 512;

    private final IbCore core = IbCore.newInstance();
    private final String net = RxePair.randomLoopbackNet();
    private final RxeNetDevice initiatorDev;
    private final RxeNetDevice targetDev;
    private final MadLayer mad;
    private final RdmaCmService cm;
    private final RdmaIserTransport targetTransport;
    private final RdmaIserTransport initiatorTransport;
    private final IserTargetRuntime target;
    private final IserInitiatorService initiator;
    final IserSession session;
    final long lunBytes;

    IserFabric(long lunBytes) throws Exception {
        this.lunBytes = lunBytes;
        initiatorDev = RxeNetDevice.open(core.registrar(), "isia%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
        targetDev = RxeNetDevice.open(core.registrar(), "isib%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
        mad = new MadLayer(core);
        cm = new RdmaCmService(core, mad);
        InetSocketAddress portal = new InetSocketAddress(addr(net + "2"), 3260);
        ScsiExecutor luns = new LunTable(new TreeMap<>(Map.of(0,
                new ScsiLun(new RamdiskBackstore("rd0", lunBytes), false))));
        targetTransport = new RdmaIserTransport(cm, IserConnectionConfig.defaults());
        initiatorTransport = new RdmaIserTransport(cm, IserConnectionConfig.defaults()
                .withSourceAddress(addr(net + "1")).withConnectTimeoutMs(8000));
        target = new IserTargetRuntime(targetTransport, new OneLun(portal, luns));
        target.enable(portal);
        initiator = new IserInitiatorService(initiatorTransport, "iqn.2026-12.org.jrdma:01:bench");
        session = initiator.login(portal, IQN).toCompletableFuture().get(30, TimeUnit.SECONDS);
        fill();
    }

    /** Writes every byte of the LUN once (1 MiB WRITEs, a few in flight). */
    private void fill() throws Exception {
        ByteBuffer src = ByteBuffer.allocateDirect(1 << 20);
        for (int i = 0; src.hasRemaining(); i++) {
            src.put((byte) (i * 31 + 7));
        }
        int blocks = (1 << 20) / BLOCK;
        for (long lba = 0; lba < lunBytes / BLOCK; lba += blocks) {
            session.write(0, lba, blocks, src.duplicate().clear()).get(30, TimeUnit.SECONDS);
        }
    }

    private static InetAddress addr(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Override
    public void close() {
        System.err.println("initiator rxe: " + initiatorDev.device().counters() + "\ntarget rxe: "
                + targetDev.device().counters() + "\ntarget: " + target.counters());
        initiator.close();
        target.close();
        initiatorTransport.close();
        targetTransport.close();
        cm.close();
        mad.close();
        initiatorDev.close();
        targetDev.close();
    }

    /** targetcli's demo mode with one target, one TPG, LUN 0, on one portal. */
    private record OneLun(InetSocketAddress portal, ScsiExecutor luns) implements TargetDirectory, PortalGroup {
        @Override public Optional<PortalGroup> portalGroup(String targetName, InetSocketAddress at) {
            return IQN.equals(targetName) && portal.equals(at) ? Optional.of(this) : Optional.empty();
        }

        @Override public List<SendTarget> sendTargets(String initiatorName, InetSocketAddress at) {
            return List.of(new SendTarget(IQN, List.of(portal.getAddress().getHostAddress() + ":3260,1")));
        }

        @Override public String targetName() { return IQN; }
        @Override public int tag() { return 1; }
        @Override public boolean allows(String initiatorName) { return true; }
        @Override public Optional<ChapCredentials> chap(String initiatorName) { return Optional.empty(); }
        @Override public ScsiExecutor luns(String initiatorName) { return luns; }
        @Override public boolean writeProtected(String initiatorName) { return false; }
    }
}
