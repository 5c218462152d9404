package org.jrdma.ulp.iser.conn;

/** The target runtime over two hw-rxe devices (RoCE v2 on real UDP). */
class IserTargetRxeTest extends AbstractIserTargetFabricTest {
    @Override
    IserFabric openFabric() {
        return new RxeIserFabric();
    }
}
