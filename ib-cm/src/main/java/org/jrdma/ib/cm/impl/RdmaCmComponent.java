package org.jrdma.ib.cm.impl;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.addr.RdmaAddrResolver;
import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.mad.sa.SaClient;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The RDMA CM service: an {@link RdmaCmService} over the IB CM service for as long as ib-core is here. The
 * {@link SaClient} (optional, dynamic) resolves routes on InfiniBand ports; without one they fail with
 * ROUTE_ERROR -ENODEV, RoCE needs none. {@link RdmaAddrResolver}s (IPoIB's interfaces) resolve IP addresses on
 * InfiniBand ports.
 */
@Component(service = RdmaCm.class)
public class RdmaCmComponent implements RdmaCm {
    private final RdmaCmService cm;

    @Activate
    public RdmaCmComponent(@Reference IbCore core, @Reference IbCm ib) {
        this.cm = new RdmaCmService(core, ib, null);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setSaClient(SaClient sa) {
        cm.saClient(sa);
    }

    void unsetSaClient(SaClient sa) {
        cm.saClientGone(sa);
    }

    /** The interfaces on RDMA ports that resolve IP addresses (ulp-ipoib's), whiteboard. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addAddrResolver(RdmaAddrResolver r) {
        cm.addAddrResolver(r);
    }

    void removeAddrResolver(RdmaAddrResolver r) {
        cm.removeAddrResolver(r);
    }

    @Override
    public RdmaCmId createId(RdmaCmEventHandler handler, RdmaPortSpace ps) {
        return cm.createId(handler, ps);
    }

    @Deactivate
    void deactivate() {
        cm.close();
    }
}
