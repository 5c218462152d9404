package org.jrdma.ib.cm.impl;

import java.net.InetAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.wire.CmAttr;
import org.jrdma.ib.cm.wire.CmPath;
import org.jrdma.ib.cm.wire.CmReq;
import org.jrdma.ib.cm.wire.CmaHeader;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.impl.MadLayer;

/**
 * A raw CM peer for tests: its own ib-core with one hw-rxe device on {@code addr} (real UDP), its own MAD
 * layer, and an agent claiming CM class version 2 Sends. It sends whatever MAD a test builds to a GID and
 * queues every CM MAD sent to it.
 */
final class CmInjector implements AutoCloseable {
    final IbCore core = IbCore.newInstance();
    final RxeNetDevice dev;
    final MadLayer mad;
    final MadAgent agent;
    final InetAddress addr;
    final int sgidIndex;
    final BlockingQueue<MadRecv> got = new LinkedBlockingQueue<>();

    CmInjector(String addr) throws Exception {
        this.addr = InetAddress.getByName(addr);
        dev = RxeNetDevice.open(core.registrar(), "inj%d", "lo", addr, 0, NettyWire.Transport.AUTO);
        mad = new MadLayer(core);
        agent = mad.registerAgent(dev.ibDevice(), 1, QpType.GSI,
                new MadRegistration(Mad.CLASS_CM, CmAttr.CLASS_VERSION, Mad.METHOD_SEND), new MadHandler() {
                    @Override
                    public void recv(MadAgent a, MadRecv r) {
                        got.add(r);
                    }
                });
        sgidIndex = CmaRoute.find(core.devices(), this.addr).gidIndex();
    }

    Gid gid() {
        return Gid.of(addr);
    }

    void send(Mad m, InetAddress to) {
        agent.send(new MadSend(m).ah(new AhAttr().portNum(1).grh(Gid.of(to), sgidIndex)));
    }

    /** The next CM MAD sent to the injector, or null after {@code ms}. */
    Mad next(long ms) throws InterruptedException {
        MadRecv r = got.poll(ms, TimeUnit.MILLISECONDS);
        return r == null ? null : r.mad();
    }

    /** The next CM MAD of {@code attrId}, skipping others (e.g. retransmissions); AssertionError if none in 10 s. */
    Mad expect(int attrId) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < end) {
            Mad m = next(100);
            if (m != null && m.attrId() == attrId) {
                return m;
            }
        }
        throw new AssertionError("no " + CmAttr.name(attrId) + " in 10 s");
    }

    /** A REQ as rdma_cm sends it, from this injector's address and {@code srcPort} to {@code dst}:{@code dstPort}. */
    CmReq req(int commId, int qpn, long caGuid, int srcPort, InetAddress dst, int dstPort, byte[] user) {
        return new CmReq().localCommId(commId).serviceId(org.jrdma.ib.cm.RdmaPortSpace.TCP.serviceId(dstPort))
                .localCaGuid(caGuid).localQpn(qpn).responderResources(1).initiatorDepth(1)
                .remoteCmResponseTimeout(20).transportType(0).flowControl(true).startingPsn(0x1234)
                .localCmResponseTimeout(20).retryCount(7).pkey(0xffff).pathMtu(3).rnrRetryCount(7).maxCmRetries(15)
                .primaryPath(new CmPath().localLid(0xffff).remoteLid(0xffff).localGid(gid()).remoteGid(Gid.of(dst))
                        .hopLimit(64).localAckTimeout(19))
                .privateData(new CmaHeader(addr, srcPort, dst).encode(user));
    }

    @Override
    public void close() {
        agent.close();
        mad.close();
        dev.close();
    }
}
