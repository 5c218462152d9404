package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.CqSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The CqSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeCqConformanceTest extends CqSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
