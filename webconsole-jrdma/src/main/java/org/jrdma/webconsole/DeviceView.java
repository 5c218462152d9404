package org.jrdma.webconsole;

import java.util.List;

import org.jrdma.ib.core.ResourceInfo;

/** One registered device at one moment: what {@code ibv_devinfo}, {@code rdma link} and {@code rdma res} show of it. */
record DeviceView(String name, int index, String driver, String nodeType, String nodeGuid, List<PortView> ports,
        List<ResourceInfo> resources) {
}
