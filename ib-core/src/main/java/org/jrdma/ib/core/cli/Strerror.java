package org.jrdma.ib.core.cli;

import org.jrdma.ib.core.Errno;

/** glibc's {@code strerror()}, for {@code perror()}-style messages ({@code rdma_connect: Connection refused}). */
public final class Strerror {
    private Strerror() {
    }

    /** {@code strerror(errno)}: the errno's message; "Unknown error" for none. */
    public static String strerror(Errno errno) {
        return errno == null ? "Unknown error" : errno.message();
    }

    /** {@code strerror(errno)} by value: "Success" for 0, "Unknown error N" for one {@link Errno} does not name. */
    public static String strerror(int errno) {
        if (errno == 0) {
            return "Success";
        }
        Errno e = Errno.of(errno);
        return e == null ? "Unknown error " + errno : e.message();
    }
}
