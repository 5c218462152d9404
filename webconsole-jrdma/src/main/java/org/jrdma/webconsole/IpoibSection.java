package org.jrdma.webconsole;

import java.util.List;
import java.util.stream.Collectors;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.jrdma.ulp.ipoib.IpoibStats;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** ulp-ipoib's interfaces, as {@code ip -s link} and {@code ip addr} show them. */
@Component(service = UlpSection.class)
public final class IpoibSection implements UlpSection {
    private final IpoibInterfaces interfaces;

    @Activate
    public IpoibSection(@Reference IpoibInterfaces interfaces) {
        this.interfaces = interfaces;
    }

    @Override
    public int order() {
        return 10;
    }

    @Override
    public void render(Html h) {
        render(interfaces.list(), h);
    }

    static void render(List<IpoibInterface> list, Html h) {
        h.heading("jrdma-ipoib-title", "IPoIB interfaces");
        if (list.isEmpty()) {
            h.note("No IPoIB interfaces (ip link add ... type ipoib makes one).");
            return;
        }
        h.table("jrdma-ipoib", List.of("Interface", "ifindex", "Link", "State", "Mode", "MTU", "P_Key", "Addresses",
                "RX packets", "RX bytes", "TX packets", "TX bytes", "Dropped (rx/tx)"));
        for (IpoibInterface i : list) {
            IpoibStats s = i.stats();
            String addrs = i.addresses().stream().map(IfAddress::toString).collect(Collectors.joining(" "));
            h.row(List.of(i.name(), i.ifindex(), i.device() + "/" + i.port(), i.state(), i.mode(), i.mtu(),
                    String.format("0x%04x", i.pkey()), addrs, s.rxPackets(), s.rxBytes(), s.txPackets(), s.txBytes(),
                    s.rxDropped() + "/" + s.txDropped()));
        }
        h.endTable();
    }
}
