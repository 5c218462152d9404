package org.jrdma.ulp.iser.conn;

/** The transport scenarios over two hw-rxe devices (RoCE v2 on real UDP, 127.X.Y.1 and .2). */
class RdmaIserTransportRxeTest extends AbstractIserTransportTest {
    @Override
    IserFabric openFabric() {
        return new RxeIserFabric();
    }
}
