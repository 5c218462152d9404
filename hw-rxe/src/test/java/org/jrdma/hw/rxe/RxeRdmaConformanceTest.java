package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.RdmaSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Rdma conformance suite on two RxeDevices over an InMemoryWire. */
class RxeRdmaConformanceTest extends RdmaSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
