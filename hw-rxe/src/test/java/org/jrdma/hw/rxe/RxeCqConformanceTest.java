package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.CqSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Cq conformance suite on two RxeDevices over an InMemoryWire. */
class RxeCqConformanceTest extends CqSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
