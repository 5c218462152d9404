package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.UdIsolationSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The UD key isolation suite (random Q_Keys, P_Key index) on hw-loopback. */
class LoopbackUdIsolationTest extends UdIsolationSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }

    @Override
    protected boolean countsQkeyViolations() {
        return true;
    }
}
