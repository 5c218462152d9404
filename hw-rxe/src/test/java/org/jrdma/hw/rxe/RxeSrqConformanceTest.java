package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.SrqSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Srq conformance suite on two RxeDevices over an InMemoryWire. */
class RxeSrqConformanceTest extends SrqSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
