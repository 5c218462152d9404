package org.jrdma.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/** The fuzzer's end of a tool's TCP side channel (the pingpongs' and perftest's exchange on 18515). */
public final class HostilePeer {
    /** How long a tool that had its exchange may stay silent before the peer stops reading. */
    public static final int SILENCE_MS = 500;

    private HostilePeer() {
    }

    /**
     * Sends {@code send}, half-closes, and reads what the tool says until it closes the socket or, having had its
     * exchange, falls silent for {@value #SILENCE_MS} ms (it is running its traffic, or waiting for it).
     */
    public static void talk(Socket s, byte[] send) throws IOException {
        s.setSoTimeout(SILENCE_MS);
        try {
            s.getOutputStream().write(send);
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            byte[] sink = new byte[4096];
            while (in.read(sink) >= 0) {
                // what the tool answers
            }
        } catch (SocketTimeoutException e) {
            // silent: the caller's wait tells whether it ends by itself
        } catch (SocketException e) {
            // the tool closed first; its status tells the rest
        }
    }
}
