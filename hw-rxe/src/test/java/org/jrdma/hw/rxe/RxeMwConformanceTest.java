package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.MwSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Mw conformance suite on two RxeDevices over an InMemoryWire. */
class RxeMwConformanceTest extends MwSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
