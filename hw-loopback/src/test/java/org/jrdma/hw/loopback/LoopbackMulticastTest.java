package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.MulticastSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Multicast conformance suite on hw-loopback: two single-port devices, delivery by MLID. */
class LoopbackMulticastTest extends MulticastSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevices();
    }
}
