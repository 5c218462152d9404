package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.CrossPdSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The cross-PD isolation property suite on hw-rxe. */
class NettyRxeCrossPdTest extends CrossPdSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
