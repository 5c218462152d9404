package org.example.hello;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Set;

import org.jrdma.hw.loopback.standalone.LoopbackFabric;
import org.jrdma.ib.cm.standalone.RdmaCmStack;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * hello outside OSGi: a private core, a loopback fabric, the RDMA CM stack with an SM on lo0 port 1, and the
 * ULP registered as a client, as DS would in the container.
 */
class HelloUlpTest {
    IbCore core;
    LoopbackFabric fabric;
    RdmaCmStack cm;
    HelloUlp hello;
    IbDevice lo0;

    @BeforeEach
    void setUp() throws InterruptedException {
        core = IbCore.newInstance();
        fabric = LoopbackFabric.open(core);
        cm = RdmaCmStack.open(core);
        lo0 = fabric.add("lo%d", 2);
        cm.startSm(lo0, 1); // the RDMA CM asks the SA for InfiniBand routes
        hello = new HelloUlp(cm);
        core.registerClient(hello);
    }

    @AfterEach
    void tearDown() {
        core.unregisterClient(hello);
        cm.close();
        fabric.close();
    }

    @Test
    void pingConnectsThroughTheCmAndEchoesSendAndRdmaWriteByteExact() throws Exception {
        String r = hello.ping("lo0", 64, 10_000);
        assertTrue(r.startsWith("hello: lo0: RC qp 0x"), r);
        assertTrue(r.contains("(port 1)") && r.endsWith("SEND 64 bytes and RDMA WRITE 4096 bytes echoed byte-exact"), r);
        assertArrayEquals(new long[] { 2, 0 }, hello.counters("lo0")); // two requests answered, none dropped
        r = hello.ping("lo0", 4095, 10_000); // a second connection, the largest SEND
        assertTrue(r.contains("SEND 4095 bytes"), r);
        assertArrayEquals(new long[] { 4, 0 }, hello.counters("lo0"));
    }

    @Test
    void aOnePortDeviceAddedLaterIsListenedOnToo() throws Exception {
        IbDevice lo1 = fabric.add("lo%d", 1);
        cm.mad().sweep(); // the SA learns the new port
        assertEquals("lo1", lo1.name());
        assertEquals(Set.of("lo0", "lo1"), hello.devices());
        assertEquals(HelloUlp.PORT, hello.listening("lo0").getPort());
        assertEquals(HelloUlp.PORT + 1, hello.listening("lo1").getPort()); // one holder per CM port: the next one
        String r = hello.ping("lo1", 100, 10_000);
        assertTrue(r.startsWith("hello: lo1:") && r.contains("SEND 100 bytes"), r);
    }

    @Test
    void removeClosesTheListenerAndLeavesNothing() throws Exception {
        hello.ping("lo0", 64, 10_000);
        UnregisterReport rep = fabric.remove(lo0);
        assertTrue(rep.clientsRemoved().contains("hello"), rep.toString());
        assertEquals(java.util.List.of(), rep.leaked(), rep.toString());
        assertEquals(Set.of(), hello.devices());
        IOException e = assertThrows(IOException.class, () -> hello.ping("lo0", 64, 2_000));
        assertEquals("hello: no device 'lo0' (hello listens on [])", e.getMessage());
    }

    @Test
    void badSizeIsRefusedBeforeAnythingIsAllocated() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> hello.ping("lo0", 4096, 2_000));
        assertEquals("hello: size must be 1..4095, not 4096", e.getMessage());
    }

    @Test
    void aConfiguredPortOutOfRangeIsRefused() {
        HelloConfig zero = new HelloConfig() {
            @Override
            public int port() {
                return 0;
            }

            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return HelloConfig.class;
            }
        };
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new HelloUlp(cm, zero));
        assertEquals("hello: port must be 1..65535, not 0", e.getMessage());
    }

    @Test
    void aMalformedPrivateDataIsAPreciseError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HelloWire.decode(new byte[3]));
        assertEquals("hello: private data of 3 bytes, need 16", e.getMessage());
        HelloWire.Remote r = new HelloWire.Remote(0x1234_5678_9abcL, 0x42, 4096);
        assertEquals(r, HelloWire.decode(HelloWire.encode(r)));
    }
}
