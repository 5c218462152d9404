package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.SrqSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Srq conformance suite on hw-loopback: one two-port device. */
class LoopbackSrqTest extends SrqSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
