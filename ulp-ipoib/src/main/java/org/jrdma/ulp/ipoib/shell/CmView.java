package org.jrdma.ulp.ipoib.shell;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;

import org.jrdma.ulp.ipoib.CmConnection;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;

/**
 * {@code cm [NAME]}: the connected-mode connections of the interfaces, one line each (Linux shows them only in
 * debugfs): {@code ib0 tx qpn 0x000052 remote 0x000053 peer LLADDR mtu 65520 up packets 20}; {@code tx} is a
 * connection this side opened ({@code ipoib_cm_tx}), {@code rx} one it accepted ({@code ipoib_cm_rx}).
 */
final class CmView {
    private CmView() {
    }

    static int main(IpoibInterfaces interfaces, String[] args, PrintStream out, StringBuilder err) {
        Optional<String> dev = args.length == 0 ? Optional.empty() : Optional.of(args[0]);
        List<IpoibInterface> l = dev.isEmpty() ? interfaces.list() : interfaces.get(dev.get()).map(List::of)
                .orElse(null);
        if (l == null) {
            err.append("Device \"").append(dev.get()).append("\" does not exist.\n");
            return 1;
        }
        for (IpoibInterface i : l) {
            for (CmConnection c : i.connections()) {
                out.println(line(i, c));
            }
        }
        return 0;
    }

    static String line(IpoibInterface i, CmConnection c) {
        return String.format("%s %s qpn 0x%06x remote 0x%06x peer %s mtu %d %s packets %d", i.name(),
                c.passive() ? "rx" : "tx", c.qpn(), c.remoteQpn(), IpFormat.lladdr(c.peer()), c.mtu(), c.state(),
                c.packets());
    }
}
