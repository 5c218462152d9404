package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.RdmaSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The RdmaSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeRdmaConformanceTest extends RdmaSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
