package org.jrdma.ulp.ipoib;

import java.util.List;
import java.util.Optional;

/** The IPoIB interfaces of the framework, as {@code ip link} lists them (in creation order). */
public interface IpoibInterfaces {
    List<IpoibInterface> list();

    Optional<IpoibInterface> get(String name);
}
