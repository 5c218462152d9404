package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.CrossPdSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The cross-PD isolation property suite on hw-loopback. */
class LoopbackCrossPdTest extends CrossPdSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
