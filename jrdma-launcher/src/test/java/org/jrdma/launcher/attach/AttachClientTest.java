package org.jrdma.launcher.attach;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against a scripted container on a real Unix-domain socket. */
class AttachClientTest {

    @TempDir
    Path dir;
    ServerSocketChannel server;
    SocketChannel clientChannel;
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    AttachClient client;
    SocketChannel container;

    @BeforeEach
    void connect() throws IOException {
        Path sock = dir.resolve("t.sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(sock));
        clientChannel = SocketChannel.open(StandardProtocolFamily.UNIX);
        clientChannel.connect(UnixDomainSocketAddress.of(sock));
        container = server.accept();
        client = new AttachClient(clientChannel, stdout, stderr);
    }

    @AfterEach
    void close() throws IOException {
        container.close();
        clientChannel.close();
        server.close();
    }

    @Test
    void outputAndStatusOfTheContainerAreTheClients() throws Exception {
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> client.run("ibv_devinfo -d nosuch"));
        InputStream in = ChannelStreams.in(container);
        OutputStream out = ChannelStreams.out(container);
        Frame command = Frame.read(in);
        assertEquals(FrameType.COMMAND, command.type());
        assertEquals("ibv_devinfo -d nosuch", command.text());
        new Frame(FrameType.STDOUT, "partial ".getBytes(StandardCharsets.UTF_8)).writeTo(out);
        new Frame(FrameType.STDERR, "IB device 'nosuch' wasn't found\n".getBytes(StandardCharsets.UTF_8)).writeTo(out);
        new Frame(FrameType.STDOUT, "line\n".getBytes(StandardCharsets.UTF_8)).writeTo(out);
        Frame.exit(255).writeTo(out);
        assertEquals(255, status.get(30, TimeUnit.SECONDS));
        assertEquals("partial line\n", stdout.toString(StandardCharsets.UTF_8));
        assertEquals("IB device 'nosuch' wasn't found\n", stderr.toString(StandardCharsets.UTF_8));
    }

    @Test
    void ctrlCSendsAnInterruptFrame() throws Exception {
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> client.run("sleep 600"));
        InputStream in = ChannelStreams.in(container);
        assertEquals("sleep 600", Frame.read(in).text());
        // the client reads frames on its thread while Ctrl-C writes from another: they must not block each other
        // (the JDK's channel streams share one lock, and the frame would never leave)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!client.running() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread ctrlC = new Thread(client::interruptOnce, "ctrl-c");
        ctrlC.setDaemon(true);
        ctrlC.start();
        CompletableFuture<Frame> next = CompletableFuture.supplyAsync(() -> {
            try {
                return Frame.read(in);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        Frame got = next.get(30, TimeUnit.SECONDS);
        assertEquals(FrameType.INTERRUPT, got.type());
        Frame.exit(130).writeTo(ChannelStreams.out(container));
        assertEquals(130, status.get(30, TimeUnit.SECONDS));
    }

    @Test
    void aContainerThatGoesAwayMidCommandIsReported() throws Exception {
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> client.run("ib_write_bw"));
        assertEquals("ib_write_bw", Frame.read(ChannelStreams.in(container)).text());
        container.close();
        assertEquals(AttachClient.BROKEN, status.get(30, TimeUnit.SECONDS));
        assertTrue(stderr.toString(StandardCharsets.UTF_8).startsWith("jrdma: lost the container: "), stderr.toString());
    }

    @Test
    void anUnexpectedFrameEndsTheCommand() throws Exception {
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> client.run("lb"));
        Frame.read(ChannelStreams.in(container));
        Frame.command("nonsense").writeTo(ChannelStreams.out(container));
        assertEquals(AttachClient.BROKEN, status.get(30, TimeUnit.SECONDS));
        assertTrue(stderr.toString(StandardCharsets.UTF_8).contains("unexpected COMMAND frame"), stderr.toString());
    }
}
