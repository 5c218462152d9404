package org.jrdma.ib.mad;

/** The MAD layer on hw-loopback: InfiniBand link layer, LID-routed, SMI QP0 present. */
class LoopbackMadTest extends AbstractMadTest {
    @Override
    MadFabric fabric() {
        return new LoopbackMadFabric();
    }
}
