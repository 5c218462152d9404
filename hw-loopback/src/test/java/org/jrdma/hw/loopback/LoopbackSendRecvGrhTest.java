package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.SendRecvSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The SendRecv conformance suite on hw-loopback with GRH address vectors (routed by DGID). */
class LoopbackSendRecvGrhTest extends SendRecvSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevicesWithGrh();
    }
}
