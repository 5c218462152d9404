package org.jrdma.ulp.ipoib;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/** The IPoIB interfaces of the framework, as {@code ip link} lists them (in creation order). */
public interface IpoibInterfaces {
    List<IpoibInterface> list();

    Optional<IpoibInterface> get(String name);

    /**
     * The interface a packet to {@code dst} leaves by (there are no gateways): the first with {@code dst} on-link
     * that does not own it. Several interfaces of one container are on one subnet, and a destination owned by one of
     * them is reached from another over the fabric (where Linux would use its loopback). Empty: no route.
     */
    default Optional<IpoibInterface> route(InetAddress dst) {
        return list().stream()
                .filter(i -> i.addresses().stream().anyMatch(a -> a.onLink(dst))
                        && i.addresses().stream().noneMatch(a -> a.address().equals(dst)))
                .findFirst();
    }
}
