package org.jrdma.ib.mad.impl;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.Multicast;
import org.jrdma.ib.mad.sa.NodeRecord;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaClient;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/** The {@link SaClient} of the framework, on the {@link MadService}. */
@Component(service = SaClient.class)
public class SaClientComponent implements SaClient {
    @Reference
    MadService mad;

    private SaClientImpl sa;

    @Activate
    void activate() {
        sa = new SaClientImpl(mad);
    }

    @Deactivate
    void deactivate() {
        sa.close();
    }

    @Override
    public CompletableFuture<PathRecord> pathRecordGet(IbDevice device, int port, Gid sgid, Gid dgid, int timeoutMs) {
        return sa.pathRecordGet(device, port, sgid, dgid, timeoutMs);
    }

    @Override
    public CompletableFuture<List<PathRecord>> pathRecords(IbDevice device, int port, PathRecord rec, long compMask,
            int timeoutMs) {
        return sa.pathRecords(device, port, rec, compMask, timeoutMs);
    }

    @Override
    public CompletableFuture<List<NodeRecord>> nodeRecords(IbDevice device, int port, NodeRecord rec, long compMask,
            int timeoutMs) {
        return sa.nodeRecords(device, port, rec, compMask, timeoutMs);
    }

    @Override
    public CompletableFuture<List<MCMemberRecord>> mcMemberRecords(IbDevice device, int port, MCMemberRecord rec,
            long compMask, int timeoutMs) {
        return sa.mcMemberRecords(device, port, rec, compMask, timeoutMs);
    }

    @Override
    public CompletableFuture<List<byte[]>> query(IbDevice device, int port, int method, int attrId, long attrMod,
            long compMask, byte[] record, int timeoutMs) {
        return sa.query(device, port, method, attrId, attrMod, compMask, record, timeoutMs);
    }

    @Override
    public Multicast joinMulticast(IbDevice device, int port, MCMemberRecord rec, long compMask,
            Multicast.Callback callback) {
        return sa.joinMulticast(device, port, rec, compMask, callback);
    }

    @Override
    public CompletableFuture<MCMemberRecord> leave(Multicast multicast) {
        return sa.leave(multicast);
    }
}
