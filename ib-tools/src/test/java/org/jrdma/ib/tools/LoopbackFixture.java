package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A private registry with one two-port hw-loopback device (IB link layer, a LID per port): the
 * server runs on port 1, the client on port 2, over TCP on 127.0.0.1. After each test nothing may
 * be left on the device: {@code rdma res} is empty and unregistering it destroys nothing.
 */
abstract class LoopbackFixture {
    IbCore core;
    LoopbackDevice lo;
    IbDevice dev;
    int tcpPort;

    @BeforeEach
    void setUp() throws Exception {
        core = IbCore.newInstance();
        lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0);
        dev = lo.register(core.registrar()).device();
        tcpPort = Side.freePort();
    }

    @AfterEach
    void tearDown() {
        List<ResourceInfo> left = dev.resources();
        UnregisterReport report = lo.close();
        assertEquals(List.of(), left, "rdma res after the run");
        assertEquals(List.of(), report.leaked(), "nothing left for ib-core to destroy");
        assertEquals(0, report.flushedWorkRequests());
    }

    String p() {
        return Integer.toString(tcpPort);
    }

    int lid(int port) {
        return dev.queryPort(port).lid();
    }
}
