package org.jrdma.ib.cm.impl;

import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.cm.ib.IbCmHandler;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.MadService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/** The IB CM service: an {@link IbCmService} for as long as ib-core and the MAD layer are here. */
@Component(service = IbCm.class)
public class IbCmComponent implements IbCm {
    private final IbCmService cm;

    @Activate
    public IbCmComponent(@Reference IbCore core, @Reference MadService mad) {
        this.cm = new IbCmService(core, mad);
    }

    @Override
    public IbCmId createId(IbDevice device, IbCmHandler handler, Object context) {
        return cm.createId(device, handler, context);
    }

    @Deactivate
    void deactivate() {
        cm.close();
    }
}
