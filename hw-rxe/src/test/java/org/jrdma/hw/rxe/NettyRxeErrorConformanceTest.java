package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.ErrorSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The ErrorSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeErrorConformanceTest extends ErrorSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
