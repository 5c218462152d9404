package org.jrdma.ulp.iser.target;

import java.util.List;
import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ulp.iser.conn.IserConnectionConfig;
import org.jrdma.ulp.iser.conn.RdmaIserTransport;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The iSER target of the bundle ({@code ib_isert} loaded): an iSER transport over the RDMA CM and the runtime
 * that serves the shared {@link TargetTree}; the tree hands the runtime its iSER portals, so targetcli and
 * ConfigAdmin targets listen from then on. Deactivation (the bundle or the RDMA CM going away) stops the
 * listeners, closes the sessions and their connections and the workers, and leaves the configuration as it is.
 * Immediate: a delayed component would only start when someone got the service (targetcli's command), so the
 * ConfigAdmin targets of a framework without a shell never listened.
 */
@Component(service = IserTargetService.class, immediate = true)
public class IserTargetService implements AutoCloseable {
    @Reference
    RdmaCm cm;

    @Reference
    TargetTree tree;

    private RdmaIserTransport transport;
    private IserTargetRuntime runtime;

    /** Outside DS (an embedding application, tests): the service over {@code cm} and {@code tree}, started. */
    public static IserTargetService start(RdmaCm cm, TargetTree tree) {
        IserTargetService s = new IserTargetService();
        s.cm = cm;
        s.tree = tree;
        s.activate();
        return s;
    }

    @Activate
    synchronized void activate() {
        transport = new RdmaIserTransport(cm, IserConnectionConfig.defaults());
        runtime = new IserTargetRuntime(transport, tree);
        tree.attach(runtime);
    }

    @Deactivate
    @Override
    public synchronized void close() {
        if (runtime == null) {
            return;
        }
        tree.detach(runtime);
        runtime.close();
        transport.close();
        runtime = null;
    }

    /** The live sessions ({@code targetcli sessions}). */
    public synchronized List<SessionInfo> sessions() {
        return runtime == null ? List.of() : runtime.sessions();
    }

    /** The runtime (its counters, the portals it listens on); null once closed. */
    public synchronized IserTargetRuntime runtime() {
        return runtime;
    }
}
