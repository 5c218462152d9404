package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.CqSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Cq conformance suite on hw-loopback: two single-port devices. */
class LoopbackCqTest extends CqSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevices();
    }
}
