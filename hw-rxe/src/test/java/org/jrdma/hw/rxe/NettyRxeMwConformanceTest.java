package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.MwSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The MwSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeMwConformanceTest extends MwSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
