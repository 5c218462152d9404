package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.SrqSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The SrqSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeSrqConformanceTest extends SrqSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
