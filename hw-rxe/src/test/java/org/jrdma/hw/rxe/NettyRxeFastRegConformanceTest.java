package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.FastRegSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The FastRegSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeFastRegConformanceTest extends FastRegSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
