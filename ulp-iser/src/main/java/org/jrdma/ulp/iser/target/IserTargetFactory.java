package org.jrdma.ulp.iser.target;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * One iSER target per factory configuration of {@value #PID}, added to the shared {@link TargetTree} (so
 * targetcli sees it): created when the configuration appears, rebuilt when it changes, removed with its
 * backstores (its portals stop listening) when it is deleted or the bundle stops. A configuration that
 * cannot be applied (bad IQN, a backstore name in use) fails activation with targetcli's words and leaves
 * nothing behind.
 */
@Component(configurationPid = IserTargetFactory.PID, configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = IserTargetConfig.class, factory = true)
public class IserTargetFactory {
    public static final String PID = "org.jrdma.ulp.iser.target";

    @Reference
    TargetTree tree;

    private TargetSpec applied;

    @Activate
    void activate(IserTargetConfig config) {
        apply(config);
    }

    @Modified
    void modified(IserTargetConfig config) {
        remove();
        apply(config);
    }

    @Deactivate
    void deactivate() {
        remove();
    }

    private void apply(IserTargetConfig config) {
        try {
            TargetSpec spec = TargetSpec.of(config);
            spec.apply(tree);
            applied = spec;
        } catch (TargetConfigException e) {
            throw new IllegalArgumentException("ulp-iser: " + PID + ": " + e.getMessage(), e);
        }
    }

    private void remove() {
        if (applied != null) {
            applied.remove(tree);
            applied = null;
        }
    }
}
