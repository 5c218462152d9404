package org.jrdma.ulp.iser.conn;

/** The transport scenarios over two hw-loopback devices (InfiniBand, SM and SA, GIDs as addresses). */
class RdmaIserTransportLoopbackTest extends AbstractIserTransportTest {
    @Override
    IserFabric openFabric() throws Exception {
        return new LoopbackIserFabric();
    }
}
