package org.jrdma.ulp.ipoib.shell;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.tun.TunAttachments;
import org.jrdma.ulp.ipoib.tun.TunAttachments.Attachment;

/**
 * {@code ipoib attach IFACE tun NAME [netns NS] [addr A/PREFIX]}, {@code ipoib detach NAME} and {@code ipoib [show]}:
 * the host's IP stack on an IPoIB interface through a TUN device. Status 0, 1 for a refusal (with the reason), 2 for
 * a usage error.
 */
final class IpoibTool {
    static final String USAGE = "Usage: ipoib attach IFACE tun NAME [netns NS] [addr A/PREFIX]...\n"
            + "       ipoib detach IFACE|NAME\n"
            + "       ipoib [show]";

    private final TunAttachments tuns;
    private final PrintStream out;
    private final StringBuilder err;

    IpoibTool(TunAttachments tuns, PrintStream out, StringBuilder err) {
        this.tuns = tuns;
        this.out = out;
        this.err = err;
    }

    int main(String[] args) {
        if (args.length == 0 || args[0].equals("show")) {
            show();
            return 0;
        }
        return switch (args[0]) {
            case "attach" -> attach(List.of(args).subList(1, args.length));
            case "detach" -> args.length == 2 ? detach(args[1]) : usage();
            default -> usage();
        };
    }

    private int attach(List<String> a) {
        if (a.size() < 3 || !a.get(1).equals("tun") || a.size() % 2 == 0) {
            return usage();
        }
        String netns = null;
        List<IfAddress> addrs = new java.util.ArrayList<>();
        for (int i = 3; i < a.size(); i += 2) {
            String v = a.get(i + 1);
            switch (a.get(i)) {
                case "netns" -> netns = v;
                case "addr" -> {
                    IfAddress addr = TunAttachments.parseAddress(v);
                    if (addr == null) {
                        return fail("ipoib attach: \"" + v + "\" is not an address/prefix", 2);
                    }
                    addrs.add(addr);
                }
                default -> {
                    return usage();
                }
            }
        }
        try {
            Attachment t = tuns.attach(a.get(0), a.get(2), netns, addrs);
            out.println(t.tunName() + ": attached to " + t.ifName() + where(t) + ", mtu " + t.mtu());
            return 0;
        } catch (IllegalArgumentException | IllegalStateException | IOException e) {
            return fail("ipoib attach: " + e.getMessage(), 1);
        }
    }

    private int detach(String name) {
        return tuns.detach(name) ? 0 : fail("ipoib detach: " + name + " is not attached", 1);
    }

    private void show() {
        for (Attachment t : tuns.list()) {
            out.println(t.tunName() + " -> " + t.ifName() + where(t) + " mtu " + t.mtu() + " carrier "
                    + (t.carrier() ? "on" : "off"));
            out.println("    to " + t.ifName() + ": " + t.toIbPackets() + " packets " + t.toIbBytes() + " bytes, to host: "
                    + t.toHostPackets() + " packets " + t.toHostBytes() + " bytes, dropped: " + t.droppedUnbound()
                    + " unbound " + t.droppedWrite() + " write");
        }
    }

    private static String where(Attachment t) {
        return (t.netns() != null ? " netns " + t.netns() : "")
                + t.addresses().stream().map(x -> " addr " + x).collect(java.util.stream.Collectors.joining());
    }

    private int usage() {
        return fail(USAGE, 2);
    }

    private int fail(String msg, int status) {
        err.append(msg).append('\n');
        return status;
    }
}
