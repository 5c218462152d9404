package org.jrdma.webconsole;

import java.util.List;
import java.util.Map;

/**
 * One port as the page shows it: {@code ibv_devinfo}'s port fields, the GIDs in use ({@code print_all_port_gids}:
 * interface id not zero, as "index address"), and {@code rdma statistic}'s counters in the driver's order.
 */
record PortView(int port, String state, String physState, int activeMtu, int maxMtu, String linkLayer, int lid,
        String netdev, List<String> gids, Map<String, Long> counters) {
}
