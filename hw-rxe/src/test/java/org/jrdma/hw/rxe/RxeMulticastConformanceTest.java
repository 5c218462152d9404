package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.MulticastSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/** The Multicast conformance suite on two RxeDevices over an InMemoryWire (IPv4 groups, IP_MULTICAST_LOOP). */
class RxeMulticastConformanceTest extends MulticastSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return new RxeTestBed();
    }
}
