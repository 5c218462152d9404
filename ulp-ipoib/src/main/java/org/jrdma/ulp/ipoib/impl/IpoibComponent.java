package org.jrdma.ulp.ipoib.impl;

import java.util.List;
import java.util.Optional;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The ipoib module: registers {@link IpoibClient} with ib-core while the SA client is there, and publishes the
 * interfaces. Configuration {@value #PID} (optional): the ring sizes, as ib_ipoib's module parameters. Stopping the bundle removes every interface (ib-core calls {@code remove} per device).
 */
@Component(service = IpoibInterfaces.class, configurationPid = IpoibComponent.PID)
@Designate(ocd = IpoibConfig.class)
public class IpoibComponent implements IpoibInterfaces {
    public static final String PID = "org.jrdma.ulp.ipoib";

    @Reference
    IbCore core;
    @Reference
    SaClient sa;

    private IpoibClient client;

    @Activate
    void activate(IpoibConfig config) {
        client = new IpoibClient(sa, config.sendQueueSize(), config.recvQueueSize());
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
}
