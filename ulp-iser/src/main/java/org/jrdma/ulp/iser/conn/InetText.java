package org.jrdma.ulp.iser.conn;

import java.net.Inet6Address;
import java.net.InetAddress;
import org.jrdma.ib.core.Gid;

/** An address as {@code inet_ntop} writes it (IPv6, an IB port's GID, compressed), for the tools' output. */
public final class InetText {
    private InetText() {
    }

    /** {@code 192.0.2.1}, {@code fe80::6a72:646d:0:101}; IPv6 in brackets if {@code bracketed}. */
    public static String host(InetAddress a, boolean bracketed) {
        if (!(a instanceof Inet6Address)) {
            return a.getHostAddress();
        }
        String h = Gid.of(a).toCompressedString();
        return bracketed ? "[" + h + "]" : h;
    }
}
