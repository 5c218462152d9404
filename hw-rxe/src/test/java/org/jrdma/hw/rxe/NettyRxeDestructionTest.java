package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.DestructionSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The destruction isolation suite (dead PDs' keys, destroyed QPs' numbers) on hw-rxe. */
class NettyRxeDestructionTest extends DestructionSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new NettyRxeTestBed();
    }
}
