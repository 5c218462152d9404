package org.jrdma.ulp.ipoib.shell;

import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;

/**
 * iproute2's {@code ip} for the IPoIB interfaces: {@code ip [-s[-s]] [-d] [-4|-6] link [show [dev] NAME]},
 * {@code ip link set [dev] NAME [up|down] [mtu N] [type ipoib mode datagram|connected]},
 * {@code ip addr [show [dev NAME]]}, {@code ip addr add|del A/PLEN dev NAME} (IPv4 or IPv6), {@code ip neigh [show [dev NAME]]},
 * {@code ip maddr [show [dev NAME]]} ({@link IpMaddr}).
 * Objects and commands match by prefix as iproute2's {@code matches()}; its messages and exit statuses
 * (1 for a bad device or argument, 2 for what the kernel refuses, 255 for an unknown object).
 */
final class Ip {
    private final IpoibInterfaces interfaces;
    private final PrintStream out;
    private final StringBuilder err;
    private int stats;
    private boolean details;
    /** -4 or -6: only that family's addresses and neighbours; 0 both. */
    private int family;

    Ip(IpoibInterfaces interfaces, PrintStream out, StringBuilder err) {
        this.interfaces = interfaces;
        this.out = out;
        this.err = err;
    }

    /** The words after {@code ip}; returns the exit status. */
    int main(String[] args) {
        int i = 0;
        for (; i < args.length && args[i].startsWith("-"); i++) {
            String o = args[i].replaceFirst("^--?", "");
            if (matches(o, "statistics") || o.equals("s")) {
                stats++;
            } else if (matches(o, "details")) {
                details = true;
            } else if (o.equals("4") || o.equals("6")) {
                family = Integer.parseInt(o);
            } else {
                return fail("Option \"" + args[i] + "\" is unknown, try \"ip -help\".", 255);
            }
        }
        if (i == args.length) {
            return fail("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\nwhere  OBJECT := { address | link | maddress | neighbour }",
                    255);
        }
        String object = args[i];
        List<String> rest = List.of(args).subList(i + 1, args.length);
        if (matches(object, "link")) {
            return link(rest);
        } else if (matches(object, "address")) {
            return addr(rest);
        } else if (matches(object, "maddress")) {
            return maddr(rest);
        } else if (matches(object, "neighbour") || matches(object, "neighbor")) {
            return neigh(rest);
        }
        return fail("Object \"" + object + "\" is unknown, try \"ip help\".", 255);
    }

    static boolean matches(String word, String full) {
        return !word.isEmpty() && full.startsWith(word);
    }

    private int fail(String msg, int status) {
        err.append(msg).append('\n');
        return status;
    }

    private int link(List<String> rest) {
        Optional<String> dev;
        if (!rest.isEmpty() && matches(rest.get(0), "set")) {
            return new IpLinkSet(interfaces, err).main(rest.subList(1, rest.size()));
        }
        if (rest.isEmpty() || matches(rest.get(0), "show") || matches(rest.get(0), "list")) {
            List<String> a = rest.isEmpty() ? rest : rest.subList(1, rest.size());
            dev = a.isEmpty() ? Optional.empty() : Optional.of(a.get(a.get(0).equals("dev") && a.size() > 1 ? 1 : 0));
        } else {
            return fail("Command \"" + rest.get(0) + "\" is unknown, try \"ip link help\".", 255);
        }
        List<IpoibInterface> l = select(dev);
        if (l == null) {
            return fail("Device \"" + dev.get() + "\" does not exist.", 1);
        }
        for (IpoibInterface i : l) {
            out.println(IpFormat.header(i, true));
            out.println(IpFormat.link(i, details));
            if (stats > 0) {
                out.print(IpFormat.stats(i.stats(), stats));
            }
        }
        return 0;
    }

    private int maddr(List<String> rest) {
        if (!rest.isEmpty() && !matches(rest.get(0), "show") && !matches(rest.get(0), "list")) {
            return fail("Command \"" + rest.get(0) + "\" is unknown, try \"ip maddr help\".", 255);
        }
        Optional<String> dev = devArg(rest.isEmpty() ? rest : rest.subList(1, rest.size()));
        List<IpoibInterface> l = select(dev);
        if (l == null) {
            return fail("Device \"" + dev.get() + "\" does not exist.", 1);
        }
        IpMaddr.show(l, family, out);
        return 0;
    }

    /** The interfaces named (all if none); null if the name is unknown. */
    private List<IpoibInterface> select(Optional<String> dev) {
        if (dev.isEmpty()) {
            return interfaces.list();
        }
        return interfaces.get(dev.get()).map(List::of).orElse(null);
    }

    private int addr(List<String> rest) {
        if (!rest.isEmpty() && (rest.get(0).equals("add") || matches(rest.get(0), "delete"))) {
            return addrChange(rest.get(0).equals("add"), rest.subList(1, rest.size()));
        }
        if (!rest.isEmpty() && !matches(rest.get(0), "show") && !matches(rest.get(0), "list")) {
            return fail("Command \"" + rest.get(0) + "\" is unknown, try \"ip address help\".", 255);
        }
        Optional<String> dev = devArg(rest.isEmpty() ? rest : rest.subList(1, rest.size()));
        List<IpoibInterface> l = select(dev);
        if (l == null) {
            return fail("Device \"" + dev.get() + "\" does not exist.", 1);
        }
        for (IpoibInterface i : l) {
            out.println(IpFormat.header(i, false));
            out.println(IpFormat.link(i, details));
            for (IfAddress a : ordered(i.addresses())) {
                out.println(IpFormat.inet(a, i));
            }
            if (stats > 0) {
                out.print(IpFormat.stats(i.stats(), stats));
            }
        }
        return 0;
    }

    /**
     * As the kernel dumps them: IPv4 first (in the order added), then IPv6 by scope, global before link-local,
     * the newest first within a scope ({@code ipv6_link_dev_addr}), and only the family asked with -4/-6.
     */
    private List<IfAddress> ordered(List<IfAddress> l) {
        List<IfAddress> out = new ArrayList<>();
        if (family != 6) {
            l.stream().filter(a -> a.address() instanceof Inet4Address).forEach(out::add);
        }
        if (family != 4) {
            List<IfAddress> v6 = new ArrayList<>(l.stream().filter(a -> a.address() instanceof Inet6Address).toList());
            java.util.Collections.reverse(v6);
            v6.sort(java.util.Comparator.comparing(a -> a.address().isLinkLocalAddress()));
            out.addAll(v6);
        }
        return out;
    }

    private static Optional<String> devArg(List<String> a) {
        for (int k = 0; k < a.size(); k++) {
            if (a.get(k).equals("dev") && k + 1 < a.size()) {
                return Optional.of(a.get(k + 1));
            }
        }
        return a.size() == 1 ? Optional.of(a.get(0)) : Optional.empty();
    }

    private int addrChange(boolean add, List<String> a) {
        String prefix = null;
        String dev = null;
        for (int k = 0; k < a.size(); k++) {
            if (a.get(k).equals("dev") && k + 1 < a.size()) {
                dev = a.get(++k);
            } else if (prefix == null) {
                prefix = a.get(k);
            } else {
                return fail("Error: either \"local\" is duplicate, or \"" + a.get(k) + "\" is a garbage.", 1);
            }
        }
        if (prefix == null) {
            return fail("Not enough information: address is required.", 1);
        }
        if (dev == null) {
            return fail("Not enough information: \"dev\" argument is required.", 1);
        }
        IfAddress ifa = IfAddress.parse(prefix);
        if (ifa == null) {
            return fail("Error: " + (prefix.contains(":") ? "inet6" : "inet") + " prefix is expected rather than \""
                    + prefix + "\".", 1);
        }
        Optional<IpoibInterface> i = interfaces.get(dev);
        if (i.isEmpty()) {
            return fail("Cannot find device \"" + dev + "\"", 1);
        }
        return add ? addAddress(i.get(), ifa) : delAddress(i.get(), ifa);
    }

    private int addAddress(IpoibInterface i, IfAddress ifa) {
        if (i.addresses().contains(ifa)) {
            return fail("RTNETLINK answers: File exists", 2);
        }
        try {
            i.addAddress(ifa.address(), ifa.prefix());
        } catch (IllegalArgumentException e) { // a multicast or unspecified address
            return fail(e.getMessage(), 2);
        }
        return 0;
    }

    private int delAddress(IpoibInterface i, IfAddress ifa) {
        return i.removeAddress(ifa.address(), ifa.prefix()) ? 0
                : fail("RTNETLINK answers: Cannot assign requested address", 2);
    }

    private int neigh(List<String> rest) {
        if (!rest.isEmpty() && !matches(rest.get(0), "show") && !matches(rest.get(0), "list")) {
            return fail("Command \"" + rest.get(0) + "\" is unknown, try \"ip neigh help\".", 255);
        }
        Optional<String> dev = devArg(rest.isEmpty() ? rest : rest.subList(1, rest.size()));
        List<IpoibInterface> l = select(dev);
        if (l == null) {
            return fail("Cannot find device \"" + dev.get() + "\"", 1);
        }
        List<String> lines = new ArrayList<>();
        for (IpoibInterface i : l) {
            i.neighbours().stream().filter(n -> family == 0 || (family == 6) == (n.address() instanceof Inet6Address))
                    .forEach(n -> lines.add(IpFormat.neigh(n, i, details)));
        }
        lines.forEach(out::println);
        return 0;
    }
}
