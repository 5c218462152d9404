package org.jrdma.hw.rxe;

import org.jrdma.verbs.conformance.MulticastSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;

/**
 * The Multicast conformance suite over NettyWire, both devices on one wire: the group's datagrams reach the
 * members through the wire's local copy (McastLoop); real IP multicast reception is not done yet (NOTES.md).
 */
class NettyRxeMulticastConformanceTest extends MulticastSuite {
    @Override
    protected VerbsTestBed newTestBed() {
        return NettyRxeTestBed.sharedWire();
    }
}
