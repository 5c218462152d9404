package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.FastRegSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The FastReg conformance suite on two RxeDevices over an InMemoryWire. */
class RxeFastRegConformanceTest extends FastRegSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
