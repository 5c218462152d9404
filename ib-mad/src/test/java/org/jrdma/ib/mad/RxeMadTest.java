package org.jrdma.ib.mad;

/** The MAD layer on hw-rxe: RoCEv2, GRH-addressed (DGID), SLID 0, sender GID from the received GRH. */
class RxeMadTest extends AbstractMadTest {
    @Override
    MadFabric fabric() {
        return new RxeMadFabric();
    }
}
