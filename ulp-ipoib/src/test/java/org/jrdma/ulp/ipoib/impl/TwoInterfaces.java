package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.Packets.ip;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tests' fabric: two single-port devices on the managed loopback, the SM/SA on the first, ib0 on it with
 * 10.0.0.1/24 and ib1 on the second with 10.0.0.2/24, both up.
 */
abstract class TwoInterfaces {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    IpoibFixture f;
    IbDevice a;
    IbDevice b;
    IpoibInterface ib0;
    IpoibInterface ib1;

    @BeforeEach
    void up() throws InterruptedException {
        a = ib.add(1);
        b = ib.add(1);
        ib.sweptBy(a, 0);
        CmOptions cm = cmOptions();
        f = (cm == null ? new IpoibFixture(ib) : new IpoibFixture(ib, cm)).register();
        ib0 = f.up("ib0");
        ib1 = f.up("ib1");
        ib0.addAddress(ip("10.0.0.1"), 24);
        ib1.addAddress(ip("10.0.0.2"), 24);
    }

    /** Connected mode's settings, with an IB CM on the fabric; null: no IB CM (datagram only). */
    CmOptions cmOptions() {
        return null;
    }

    @AfterEach
    void down() {
        f.close();
    }
}
