package org.jrdma.ulp.iser.shell;

import java.net.InetSocketAddress;
import org.jrdma.ulp.iser.conn.InetText;

/** iscsiadm's {@code -p IP[:PORT]} ({@code [IPv6]:PORT} too; port 3260 when absent), and how it prints portals. */
final class PortalArg {
    private PortalArg() {
    }

    static InetSocketAddress parse(String text) {
        String host = text;
        int port = 3260;
        int colon = text.lastIndexOf(':');
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("invalid portal " + text);
            }
            host = text.substring(1, close);
            if (close + 1 < text.length()) {
                port = port(text, text.substring(close + 2));
            }
        } else if (colon > 0 && text.indexOf(':') == colon) {
            host = text.substring(0, colon);
            port = port(text, text.substring(colon + 1));
        }
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            // open-iscsi's resolve_address(); what used to come out was an NPE printing the portal
            throw new IllegalArgumentException("Cannot resolve host " + host
                    + ". getaddrinfo error: [Name or service not known]");
        }
        return a;
    }

    private static int port(String text, String p) {
        try {
            int port = Integer.parseInt(p);
            if (port > 0 && port < 65536) {
                return port;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new IllegalArgumentException("invalid portal " + text);
    }

    /** open-iscsi's portal in login/logout messages: {@code 192.0.2.11,3260}. */
    static String comma(InetSocketAddress a) {
        return InetText.host(a.getAddress(), false) + "," + a.getPort();
    }

    /** {@code 192.0.2.11:3260} ({@code [fd00::1]:3260}). */
    static String colon(InetSocketAddress a) {
        return InetText.host(a.getAddress(), true) + ":" + a.getPort();
    }
}
