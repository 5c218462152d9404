package org.jrdma.hw.rxe.osgi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.RdmaLinkOps;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;

/**
 * {@code rxe_link_ops}: {@code rdma link add NAME type rxe netdev IF [addr IP] [mtu N] [transport nio|epoll]}
 * creates a device, {@code rdma link delete NAME} removes it. Devices still present when the component
 * deactivates (bundle stop) are removed too.
 */
@Component(service = RdmaLinkOps.class)
public class RxeLinkOps implements RdmaLinkOps {
    private final IbCore core;
    private final List<RxeNetDevice> links = new CopyOnWriteArrayList<>();

    /** The Log Service's logger, injected by SCR; {@code null} where no Log Service runs. */
    @Reference(service = LoggerFactory.class, cardinality = ReferenceCardinality.OPTIONAL)
    Logger log;

    @Activate
    public RxeLinkOps(@Reference IbCore core) {
        this.core = core;
    }

    @Override
    public String type() {
        return "rxe";
    }

    @Override
    public IbDevice newLink(String name, String netdev, Map<String, String> options) {
        String addr = "";
        int mtu = 0;
        NettyWire.Transport t = NettyWire.Transport.AUTO;
        for (Map.Entry<String, String> e : options.entrySet()) {
            switch (e.getKey()) {
                case "addr" -> addr = e.getValue();
                case "mtu" -> {
                    try {
                        mtu = Integer.parseInt(e.getValue());
                    } catch (NumberFormatException x) {
                        throw new VerbsException(Errno.EINVAL, "bad mtu " + e.getValue());
                    }
                }
                case "transport" -> {
                    try {
                        t = NettyWire.Transport.valueOf(e.getValue().toUpperCase(java.util.Locale.ROOT));
                    } catch (IllegalArgumentException x) {
                        throw new VerbsException(Errno.EINVAL, "bad transport " + e.getValue());
                    }
                }
                default -> throw new VerbsException(Errno.EINVAL, "unknown option " + e.getKey());
            }
        }
        for (IbDevice d : core.devices()) {
            if (d.name().equals(name)) {
                throw new VerbsException(Errno.EEXIST, "device " + name + " exists");
            }
        }
        RxeNetDevice l;
        try {
            l = RxeNetDevice.open(core.registrar(), name, netdev, addr, mtu, t);
        } catch (IllegalStateException e) {
            throw new VerbsException(Errno.EBUSY, e.getMessage(), e);
        }
        links.add(l);
        logAdded(log, l, "rdma link add");
        return l.ibDevice();
    }

    /** As rdma_rxe's "added rxe0 to lo" in dmesg: INFO, and the device's parameters at DEBUG. */
    static void logAdded(Logger log, RxeNetDevice d, String how) {
        if (log != null) {
            log.info("{}: added to {} ({})", d.ibDevice().name(), d.netdev(), how);
            log.debug("{}: {} transport, gso {}, gro {}", d.ibDevice().name(), d.wire().isEpoll() ? "epoll" : "nio",
                    d.wire().isGso(), d.wire().isGro());
        }
    }

    static void logRemoved(Logger log, String name, String how) {
        if (log != null) {
            log.info("{}: removed ({})", name, how);
        }
    }

    @Override
    public boolean delLink(IbDevice device) {
        for (RxeNetDevice l : links) {
            if (l.ibDevice() == device || l.ibDevice().name().equals(device.name())) {
                String name = l.ibDevice().name();
                links.remove(l);
                l.close();
                logRemoved(log, name, "rdma link delete");
                return true;
            }
        }
        return false;
    }

    /** The devices created through {@code rdma link add}. */
    public List<RxeNetDevice> links() {
        return new ArrayList<>(links);
    }

    @Deactivate
    void deactivate() {
        for (RxeNetDevice l : links) {
            l.close();
        }
        links.clear();
    }
}
