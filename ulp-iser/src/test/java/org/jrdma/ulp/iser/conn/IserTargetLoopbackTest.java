package org.jrdma.ulp.iser.conn;

/** The target runtime over two hw-loopback devices (InfiniBand: SM, SA path records, GIDs as addresses). */
class IserTargetLoopbackTest extends AbstractIserTargetFabricTest {
    @Override
    IserFabric openFabric() throws Exception {
        return new LoopbackIserFabric();
    }
}
