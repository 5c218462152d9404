package org.jrdma.hw.rxe;

import java.net.InetAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The IP multicast groups the devices on one {@link RxeWire} joined ({@link RxeWire#joinGroup}): what a wire
 * consults to hand a datagram sent to a group to its members, the sender's own device included (IP_MULTICAST_LOOP).
 */
public final class McastGroups {
    private final Map<InetAddress, Set<RxeDevice>> groups = new ConcurrentHashMap<>();

    public void join(RxeDevice dev, InetAddress group) {
        groups.computeIfAbsent(group, g -> ConcurrentHashMap.newKeySet()).add(dev);
    }

    public void leave(RxeDevice dev, InetAddress group) {
        groups.computeIfPresent(group, (g, s) -> {
            s.remove(dev);
            return s.isEmpty() ? null : s;
        });
    }

    /** Forgets {@code dev} in every group (it is being detached from the wire). */
    public void forget(RxeDevice dev) {
        groups.values().forEach(s -> s.remove(dev));
    }

    /** The devices that joined {@code group}; empty if none. */
    public Set<RxeDevice> members(InetAddress group) {
        return groups.getOrDefault(group, Set.of());
    }
}
