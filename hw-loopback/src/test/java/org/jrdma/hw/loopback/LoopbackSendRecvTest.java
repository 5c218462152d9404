package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.SendRecvSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The SendRecv conformance suite on hw-loopback: two single-port devices. */
class LoopbackSendRecvTest extends SendRecvSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevices();
    }
}
