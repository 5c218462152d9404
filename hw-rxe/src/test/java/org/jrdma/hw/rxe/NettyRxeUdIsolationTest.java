package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.UdIsolationSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The UD key isolation suite (random Q_Keys, P_Key index) on hw-rxe. */
class NettyRxeUdIsolationTest extends UdIsolationSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }

    @Override
    protected boolean countsQkeyViolations() {
        return true;
    }
}
