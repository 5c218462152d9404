package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.SendRecvSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The SendRecv conformance suite on two RxeDevices over an InMemoryWire. */
class RxeSendRecvConformanceTest extends SendRecvSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
