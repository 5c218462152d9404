package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.SendIsolationSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The SEND isolation property suite on two RxeDevices over NettyWire (real UDP 4791 on 127.X.Y.1 / 127.X.Y.2). */
class NettyRxeSendIsolationTest extends SendIsolationSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
