package org.example.hello.shell;

import java.io.IOException;

import org.example.hello.HelloUlp;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * hello's Gogo commands. A ULP adds commands by registering any service with {@code osgi.command.scope} and
 * {@code osgi.command.function}: Gogo calls the public method of that name with the words typed; what it
 * returns is printed, an exception is the command's error (exit status 1 in {@code ./jrdma 'CMD'}).
 */
@Component(service = HelloCommands.class, property = { "osgi.command.scope=hello", "osgi.command.function=ping",
        "osgi.command.function=devices" })
public class HelloCommands {
    @Reference
    HelloUlp hello;

    /** {@code hello:ping DEV}: one connection on DEV, a 64-byte SEND and a 4 KiB RDMA WRITE echoed back. */
    public String ping(String device) throws IOException, InterruptedException {
        return ping(device, 64);
    }

    /** {@code hello:ping DEV SIZE}: the SEND of SIZE bytes (1..4095). */
    public String ping(String device, int size) throws IOException, InterruptedException {
        return hello.ping(device, size, 10_000);
    }

    /** {@code hello:devices}: the devices hello listens on, where, and the requests answered and dropped. */
    public String devices() {
        StringBuilder b = new StringBuilder();
        for (String d : new java.util.TreeSet<>(hello.devices())) {
            long[] c = hello.counters(d);
            java.net.InetSocketAddress at = hello.listening(d);
            if (c != null && at != null) {
                b.append(d).append(": ").append(at.getAddress().getHostAddress()).append(" port ").append(at.getPort())
                        .append(", answered ").append(c[0]).append(", dropped ").append(c[1]).append('\n');
            }
        }
        return b.toString().stripTrailing();
    }
}
