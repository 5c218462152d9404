package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.SendRecvSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The SendRecvSuite conformance suite on two RxeDevices over NettyWire (UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeSendRecvConformanceTest extends SendRecvSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
