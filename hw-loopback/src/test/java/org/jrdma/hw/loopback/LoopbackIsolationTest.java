package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.IsolationSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The isolation property suite on hw-loopback: one two-port device. */
class LoopbackIsolationTest extends IsolationSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
