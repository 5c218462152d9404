package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.SendIsolationSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The SEND isolation property suite on hw-loopback: one two-port device. */
class LoopbackSendIsolationTest extends SendIsolationSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
