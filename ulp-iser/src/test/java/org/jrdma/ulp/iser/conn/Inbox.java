package org.jrdma.ulp.iser.conn;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.ulp.iser.pdu.IserPdu;

/** A test handler: keeps what a connection delivers; every wait is bounded. */
class Inbox implements IserConnectionHandler {
    final BlockingQueue<IserPdu> pdus = new LinkedBlockingQueue<>();
    final CompletableFuture<String> disconnected = new CompletableFuture<>();
    final AtomicInteger disconnects = new AtomicInteger();
    volatile String thread;

    @Override
    public void onPdu(IserConnection conn, IserPdu pdu) {
        thread = Thread.currentThread().getName();
        pdus.add(pdu);
    }

    @Override
    public void onDisconnected(IserConnection conn, String reason) {
        disconnects.incrementAndGet();
        disconnected.complete(reason);
    }

    IserPdu next() throws InterruptedException {
        IserPdu p = pdus.poll(10, TimeUnit.SECONDS);
        assertNotNull(p, "no PDU in 10 s");
        return p;
    }

    String awaitDisconnect() throws Exception {
        return disconnected.get(10, TimeUnit.SECONDS);
    }
}
