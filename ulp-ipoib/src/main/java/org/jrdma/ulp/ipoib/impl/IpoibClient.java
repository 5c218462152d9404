package org.jrdma.ulp.ipoib.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;

/**
 * {@code ipoib_client} ({@code ipoib_add_one} / {@code ipoib_remove_one}): an interface for every port with an
 * InfiniBand link layer, none for RoCE ports; named {@code ib%d} with the lowest free number, as
 * {@code alloc_netdev} does, so interfaces come in device registration and port order.
 */
public final class IpoibClient implements IbClient, IpoibInterfaces {
    public static final String NAME = "ipoib";

    private final SaClient sa;
    private final IbCm ibCm;
    private final CmOptions cm;
    private final QueueSizes sizes;
    private final List<IpoibNetdev> netdevs = new CopyOnWriteArrayList<>();
    private final AtomicInteger ifindex = new AtomicInteger();

    public IpoibClient(SaClient sa) {
        this(sa, 128, 256);
    }

    /** With ib_ipoib's {@code send_queue_size} and {@code recv_queue_size} (adjusted as Linux does). */
    public IpoibClient(SaClient sa, int sendQueueSize, int recvQueueSize) {
        this(sa, null, CmOptions.DEFAULT, sendQueueSize, recvQueueSize);
    }

    /** With the IB CM for connected mode (interfaces start in datagram mode) and the default ring sizes. */
    public IpoibClient(SaClient sa, IbCm ibCm) {
        this(sa, ibCm, CmOptions.DEFAULT, 128, 256);
    }

    /** With the IB CM connected mode uses (null: datagram only) and connected mode's settings. */
    IpoibClient(SaClient sa, IbCm ibCm, CmOptions cm, int sendQueueSize, int recvQueueSize) {
        this.sa = sa;
        this.ibCm = ibCm;
        this.cm = cm;
        this.sizes = QueueSizes.of(sendQueueSize, recvQueueSize);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void add(IbDevice device) {
        List<IpoibNetdev> mine = new ArrayList<>();
        for (int port = 1; port <= device.physPortCnt(); port++) {
            if (device.linkLayer(port) != LinkLayer.INFINIBAND) {
                continue;
            }
            IpoibNetdev d = create(device, port);
            mine.add(d);
            d.open();
        }
        device.setClientData(this, mine);
    }

    private synchronized IpoibNetdev create(IbDevice device, int port) {
        IpoibNetdev d = new IpoibNetdev(this, sa, ibCm, cm, device, port, freeName(), ifindex.incrementAndGet(),
                sizes);
        netdevs.add(d);
        return d;
    }

    private String freeName() {
        for (int n = 0;; n++) {
            String name = "ib" + n;
            if (netdevs.stream().noneMatch(d -> d.name().equals(name))) {
                return name;
            }
        }
    }

    @Override
    public void remove(IbDevice device, Object clientData) {
        @SuppressWarnings("unchecked")
        List<IpoibNetdev> mine = (List<IpoibNetdev>) clientData;
        for (IpoibNetdev d : mine) {
            d.close();
            netdevs.remove(d);
        }
    }

    /** The interfaces with their implementation type (the address resolver's view). */
    List<IpoibNetdev> netdevs() {
        return List.copyOf(netdevs);
    }

    @Override
    public List<IpoibInterface> list() {
        return List.copyOf(netdevs);
    }

    @Override
    public Optional<IpoibInterface> get(String name) {
        return netdevs.stream().filter(d -> d.name().equals(name)).map(IpoibInterface.class::cast).findFirst();
    }
}
