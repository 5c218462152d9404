package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.FastRegSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The FastReg conformance suite on hw-loopback: one two-port device. */
class LoopbackFastRegTest extends FastRegSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
