package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.QpStateSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The QpStateSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeQpStateConformanceTest extends QpStateSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
