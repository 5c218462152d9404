package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.AtomicSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Atomic conformance suite on two RxeDevices over an InMemoryWire. */
class RxeAtomicConformanceTest extends AtomicSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
