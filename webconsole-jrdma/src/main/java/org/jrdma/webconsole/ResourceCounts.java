package org.jrdma.webconsole;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.ResourceType;

/** {@code rdma res}'s summary, split by client: per owner, how many of each resource type it holds. */
final class ResourceCounts {
    private ResourceCounts() {
    }

    /** Owner (sorted by name) to counts of every type (zeros included, in {@link ResourceType} order). */
    static Map<String, Map<ResourceType, Integer>> byOwner(List<ResourceInfo> resources) {
        Map<String, Map<ResourceType, Integer>> owners = new TreeMap<>();
        for (ResourceInfo r : resources) {
            owners.computeIfAbsent(r.owner(), o -> zeros()).merge(r.type(), 1, Integer::sum);
        }
        return owners;
    }

    private static Map<ResourceType, Integer> zeros() {
        Map<ResourceType, Integer> m = new EnumMap<>(ResourceType.class);
        for (ResourceType t : ResourceType.values()) {
            m.put(t, 0);
        }
        return m;
    }

    /** The name {@code rdma res} gives a type: {@code pd}, {@code qp}, ... */
    static String label(ResourceType t) {
        return t.name().toLowerCase(java.util.Locale.ROOT);
    }
}
