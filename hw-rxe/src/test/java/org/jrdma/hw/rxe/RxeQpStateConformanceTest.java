package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.QpStateSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The QpState conformance suite on two RxeDevices over an InMemoryWire. */
class RxeQpStateConformanceTest extends QpStateSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
