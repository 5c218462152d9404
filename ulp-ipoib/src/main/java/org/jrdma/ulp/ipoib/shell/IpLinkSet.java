package org.jrdma.ulp.ipoib.shell;

import java.util.List;
import java.util.Optional;

import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.jrdma.ulp.ipoib.IpoibMode;

/**
 * {@code ip link set [dev] NAME [up|down] [mtu N] [type ipoib mode datagram|connected]}: iproute2's words for Linux's
 * {@code ipoib_changelink} (IFLA_IPOIB_MODE, what {@code /sys/class/net/NAME/mode} also sets) and {@code
 * dev_set_mtu}. The mode is set before the MTU, as the kernel applies the link type's attributes after IFLA_MTU
 * would clamp it otherwise. iproute2's messages and statuses.
 */
final class IpLinkSet {
    private final IpoibInterfaces interfaces;
    private final StringBuilder err;

    IpLinkSet(IpoibInterfaces interfaces, StringBuilder err) {
        this.interfaces = interfaces;
        this.err = err;
    }

    private int fail(String msg, int status) {
        err.append(msg).append('\n');
        return status;
    }

    /** The words after {@code ip link set}; the exit status. */
    int main(List<String> a) {
        String dev = null;
        Integer mtu = null;
        IpoibMode mode = null;
        Boolean up = null;
        for (int k = 0; k < a.size(); k++) {
            String w = a.get(k);
            if (w.equals("mtu") && k + 1 < a.size()) {
                try {
                    mtu = Integer.parseInt(a.get(++k));
                } catch (NumberFormatException e) {
                    return fail("Error: argument \"" + a.get(k) + "\" is wrong: Invalid \"mtu\" value", 1);
                }
            } else if (w.equals("type") && k + 1 < a.size()) {
                if (!a.get(++k).equals("ipoib")) {
                    return fail("Error: only \"type ipoib\" can be changed here.", 1);
                }
                if (k + 2 >= a.size() || !a.get(k + 1).equals("mode")) {
                    return fail("Error: \"mode\" and its argument are required after \"type ipoib\".", 1);
                }
                k += 2;
                mode = IpoibMode.of(a.get(k));
                if (mode == null) {
                    return fail("mode must be one of: datagram, connected", 1);
                }
            } else if (w.equals("up") || w.equals("down")) {
                up = w.equals("up");
            } else if (w.equals("dev") && k + 1 < a.size()) {
                dev = a.get(++k);
            } else if (dev == null) {
                dev = w;
            } else {
                return fail("Error: either \"dev\" is duplicate, or \"" + w + "\" is a garbage.", 1);
            }
        }
        if (dev == null) {
            return fail("Not enough information: \"dev\" argument is required.", 1);
        }
        Optional<IpoibInterface> i = interfaces.get(dev);
        if (i.isEmpty()) {
            return fail("Cannot find device \"" + dev + "\"", 1);
        }
        return apply(i.get(), mode, mtu, up);
    }

    /** Down first and up last, as the kernel's do_setlink takes IFF_UP after the rest. */
    private int apply(IpoibInterface i, IpoibMode mode, Integer mtu, Boolean up) {
        try {
            if (Boolean.FALSE.equals(up)) {
                i.setUp(false);
            }
            if (mode != null) {
                i.setMode(mode);
            }
            if (mtu != null) {
                i.setMtu(mtu);
            }
            if (Boolean.TRUE.equals(up)) {
                i.setUp(true);
            }
            return 0;
        } catch (IllegalArgumentException e) {
            return fail(e.getMessage(), 2);
        } catch (UnsupportedOperationException e) {
            return fail("RTNETLINK answers: Operation not supported", 2);
        }
    }
}
