package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.MulticastSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/**
 * The Multicast conformance suite on hw-loopback with the switch forwarding by its multicast forwarding table (the
 * MLIDs of the suite's groups lead to side B's port): the same semantics as forwarding by attach tables.
 */
class LoopbackMulticastSwitchedTest extends MulticastSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevicesSwitched();
    }
}
