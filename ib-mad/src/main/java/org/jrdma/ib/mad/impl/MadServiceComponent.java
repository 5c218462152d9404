package org.jrdma.ib.mad.impl;

import java.util.Map;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/** The {@link MadService} of the framework: a {@link MadLayer} on the bundle's view of {@link IbCore}. */
@Component(service = MadService.class)
public class MadServiceComponent implements MadService {
    @Reference
    IbCore core;

    private MadLayer layer;

    @Activate
    void activate() {
        layer = new MadLayer(core);
    }

    @Deactivate
    void deactivate() {
        layer.close();
    }

    @Override
    public MadAgent registerAgent(IbDevice device, int port, QpType qpType, MadRegistration reg, MadHandler handler) {
        return layer.registerAgent(device, port, qpType, reg, handler);
    }

    /** The MAD layer behind the service, for the SM component of this bundle. */
    public MadLayer layer() {
        return layer;
    }

    @Override
    public Map<String, Long> counters(IbDevice device, int port) {
        return layer.counters(device, port);
    }
}
