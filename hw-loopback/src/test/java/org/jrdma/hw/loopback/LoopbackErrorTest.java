package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.ErrorSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Error conformance suite on hw-loopback: two single-port devices. */
class LoopbackErrorTest extends ErrorSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevices();
    }
}
