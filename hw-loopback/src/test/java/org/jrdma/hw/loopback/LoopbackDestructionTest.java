package org.jrdma.hw.loopback;

import org.jrdma.verbs.conformance.DestructionSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The destruction isolation suite (dead PDs' keys, destroyed QPs' numbers) on hw-loopback. */
class LoopbackDestructionTest extends DestructionSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoPorts();
    }
}
