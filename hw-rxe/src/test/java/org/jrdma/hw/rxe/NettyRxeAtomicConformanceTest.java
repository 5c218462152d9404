package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.AtomicSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The AtomicSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeAtomicConformanceTest extends AtomicSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
