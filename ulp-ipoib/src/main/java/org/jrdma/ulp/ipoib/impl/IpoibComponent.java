package org.jrdma.ulp.ipoib.impl;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jrdma.ib.cm.addr.RdmaAddrResolver;
import org.jrdma.ib.cm.addr.RdmaDevAddr;
import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.jrdma.ulp.ipoib.IpoibMode;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The ipoib module: registers {@link IpoibClient} with ib-core while the SA client is there, and publishes the
 * interfaces. Configuration {@value #PID} (optional): the ring sizes, as ib_ipoib's module parameters, and connected
 * mode's settings (the mode new interfaces start in, the idle timeout, the datagram fallback). Stopping the bundle
 * removes every interface (ib-core calls {@code remove} per device). It is also the RDMA CM's
 * {@link RdmaAddrResolver} for the interfaces' addresses (whiteboard: ib-cm takes every one registered).
 */
@Component(service = { IpoibInterfaces.class, RdmaAddrResolver.class }, configurationPid = IpoibComponent.PID)
@Designate(ocd = IpoibConfig.class)
public class IpoibComponent implements IpoibInterfaces, RdmaAddrResolver {
    public static final String PID = "org.jrdma.ulp.ipoib";

    @Reference
    IbCore core;
    @Reference
    SaClient sa;
    @Reference
    IbCm ibCm;

    private IpoibClient client;
    private IpoibAddrResolver addrs;

    @Activate
    void activate(IpoibConfig config) {
        IpoibMode mode = IpoibMode.of(config.mode());
        if (mode == null) {
            throw new IllegalArgumentException("mode \"" + config.mode() + "\": datagram or connected");
        }
        CmOptions cm = new CmOptions(mode, config.cmRxTimeout() * 1000L, config.cmFallback() * 1000L);
        client = new IpoibClient(sa, ibCm, cm, config.sendQueueSize(), config.recvQueueSize());
        addrs = new IpoibAddrResolver(client);
        core.registerClient(client);
    }

    @Deactivate
    void deactivate() {
        core.unregisterClient(client);
    }

    @Override
    public List<IpoibInterface> list() {
        return client.list();
    }

    @Override
    public Optional<IpoibInterface> get(String name) {
        return client.get(name);
    }

    @Override
    public RdmaDevAddr translateIp(InetAddress ip) {
        return addrs.translateIp(ip);
    }

    @Override
    public CompletableFuture<RdmaDevAddr> resolveIp(InetAddress src, InetAddress dst, int timeoutMs) {
        return addrs.resolveIp(src, dst, timeoutMs);
    }
}
