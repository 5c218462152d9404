package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.QpStateSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The QpState conformance suite on hw-loopback: one two-port device. */
class LoopbackQpStateTest extends QpStateSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
