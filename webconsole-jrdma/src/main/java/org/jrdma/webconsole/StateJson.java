package org.jrdma.webconsole;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jrdma.ib.core.ResourceType;

/**
 * What the page's script polls ({@code jrdma/state.json}): per device, its ports' state and counters and the
 * resource counts per client.
 * <pre>{"devices":[{"name":"rxe0","ports":[{"port":1,"state":"ACTIVE","counters":{"sent_pkts":10,...}}],
 *   "clients":{"mad":{"pd":1,"cq":1,...}}}]}</pre>
 * Counters are unsigned 64-bit values written as JSON numbers.
 */
final class StateJson {
    private StateJson() {
    }

    static String render(List<DeviceView> devices) {
        StringBuilder b = new StringBuilder(2048).append("{\"devices\":[");
        for (int i = 0; i < devices.size(); i++) {
            DeviceView d = devices.get(i);
            b.append(i == 0 ? "" : ",").append("{\"name\":").append(Json.quote(d.name())).append(",\"ports\":[");
            for (int j = 0; j < d.ports().size(); j++) {
                PortView p = d.ports().get(j);
                b.append(j == 0 ? "" : ",").append("{\"port\":").append(p.port())
                        .append(",\"state\":").append(Json.quote(p.state())).append(",\"counters\":");
                object(b, p.counters(), Function.identity(), Long::toUnsignedString);
                b.append('}');
            }
            b.append("],\"clients\":");
            object(b, ResourceCounts.byOwner(d.resources()), Function.identity(),
                    counts -> object(new StringBuilder(), counts, ResourceCounts::label, String::valueOf).toString());
            b.append('}');
        }
        return b.append("]}").toString();
    }

    /** Appends {@code {"key":value,...}}; {@code value} gives the JSON text of a value (a number, an object). */
    private static <K, V> StringBuilder object(StringBuilder b, Map<K, V> map, Function<K, String> key,
            Function<V, String> value) {
        b.append('{');
        for (Iterator<Map.Entry<K, V>> it = map.entrySet().iterator(); it.hasNext();) {
            Map.Entry<K, V> e = it.next();
            b.append(Json.quote(key.apply(e.getKey()))).append(':').append(value.apply(e.getValue()))
                    .append(it.hasNext() ? "," : "");
        }
        return b.append('}');
    }
}
