package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.AtomicSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Atomic conformance suite on hw-loopback: two single-port devices. */
class LoopbackAtomicTest extends AtomicSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevices();
    }
}
