package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.RdmaSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Rdma conformance suite on hw-loopback: one two-port device. */
class LoopbackRdmaTest extends RdmaSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
