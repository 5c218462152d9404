package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.ErrorSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Error conformance suite on two RxeDevices over an InMemoryWire. */
class RxeErrorConformanceTest extends ErrorSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
