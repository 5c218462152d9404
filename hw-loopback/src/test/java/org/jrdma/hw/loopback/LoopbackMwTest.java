package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.MwSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Mw conformance suite on hw-loopback: two single-port devices. */
class LoopbackMwTest extends MwSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevices();
    }
}
