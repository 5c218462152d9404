package org.jrdma.ib.cm.impl;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.mad.MadService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/** The RDMA CM service: an {@link RdmaCmService} for as long as ib-core and the MAD layer are here. */
@Component(service = RdmaCm.class)
public class RdmaCmComponent implements RdmaCm {
    private final RdmaCmService cm;

    @Activate
    public RdmaCmComponent(@Reference IbCore core, @Reference MadService mad) {
        this.cm = new RdmaCmService(core, mad);
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
