package org.jrdma.itest;

import java.util.Arrays;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/** Lookups in the running framework that every in-framework test makes. */
final class Frameworks {
    private Frameworks() {
    }

    /** The installed bundle with symbolic name {@code bsn}, or an AssertionError. */
    static Bundle bundle(BundleContext context, String bsn) {
        return Arrays.stream(context.getBundles()).filter(b -> bsn.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("no bundle " + bsn));
    }

    /** How many services are registered now (a leak check across stop/start cycles). */
    static int serviceCount(BundleContext context) throws InvalidSyntaxException {
        ServiceReference<?>[] all = context.getAllServiceReferences(null, null);
        return all == null ? 0 : all.length;
    }
}
