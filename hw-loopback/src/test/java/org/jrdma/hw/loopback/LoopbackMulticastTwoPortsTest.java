package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.MulticastSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Multicast conformance suite on hw-loopback: one device, sender on port 1, receivers on port 2. */
class LoopbackMulticastTwoPortsTest extends MulticastSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
