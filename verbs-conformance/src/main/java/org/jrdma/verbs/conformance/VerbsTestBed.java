package org.jrdma.verbs.conformance;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;

/**
 * What a driver provides to run the conformance suites: a registry with two devices (or one device
 * twice) whose ports reach each other, and the address vectors to get there. A driver's concrete
 * test class builds one in {@code newTestBed()}; the suite creates a fresh bed for every test and
 * closes it afterwards.
 * <p>The two ends may be the same device (two ports of it, or even one port): the suites never
 * assume they differ, they only talk through {@link #avTo}.
 */
public interface VerbsTestBed extends AutoCloseable {
    /** The registry the devices are registered in (the suite registers its client here). */
    IbCore core();

    /** Side A: the requester in most tests. */
    IbDevice a();

    /** Side B: the responder in most tests. May be the same device as {@link #a()}. */
    IbDevice b();

    /** The port of {@link #a()} the suites use (1-based). */
    int portA();

    /** The port of {@link #b()} the suites use (1-based). */
    int portB();

    /**
     * The address vector that reaches port {@code port} of device {@code d} from the other side:
     * the DLID on an InfiniBand fabric, a GRH with the port's GID on RoCE (and whatever else the
     * link layer needs). The suites set {@link AhAttr#portNum(int)} to the sending port themselves,
     * so the value returned here only has to describe the destination.
     */
    AhAttr avTo(IbDevice d, int port);

    /**
     * Tests this driver is known to fail, as {@code "SuiteName#testMethod"} (e.g.
     * {@code "RdmaSuite#zeroLengthRdmaNeedsNoKey"}, every invocation of a parameterized test) mapped
     * to the reason (the bug). They are reported as skipped with that reason instead of failing the
     * build, until the driver is fixed and the entry removed; run with
     * {@code -Dverbs.conformance.runKnownFailures=true} to run them anyway.
     */
    default java.util.Map<String, String> knownFailures() {
        return java.util.Map.of();
    }

    /**
     * Unregisters the devices and fails (throws {@link AssertionError}) if anything leaked: the
     * suite destroys everything it created before it closes the bed, so an unregistration that
     * had to reap resources means a destroy went wrong.
     */
    @Override
    void close();
}
