package org.jrdma.sw.rdmavt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The QPN table against a HashMap model: random puts and removes across blocks, QP0/QP1, snapshots. */
class QpnTableTest {
    /** QPs are only identities to the table. */
    private static Object qp() {
        return new Object();
    }

    @Test
    void agreesWithAMapUnderRandomPutsAndRemoves() {
        QpnTable<Object> t = new QpnTable<>(Object[]::new);
        Map<Integer, Object> model = new HashMap<>();
        Random r = new Random(7);
        for (int i = 0; i < 50_000; i++) {
            int qpn = r.nextBoolean() ? 0x11 + r.nextInt(10_000) : r.nextInt(1 << 24);
            if (r.nextInt(3) == 0 && model.containsKey(qpn)) {
                Object other = qp();
                t.remove(qpn, other); // not the one there: no effect
                t.remove(qpn, model.remove(qpn));
            } else {
                Object q = qp();
                t.put(qpn, q);
                model.put(qpn, q);
            }
            if (i % 5000 == 0) {
                assertEquals(model.size(), t.all().length);
            }
        }
        for (Map.Entry<Integer, Object> e : model.entrySet()) {
            assertSame(e.getValue(), t.get(e.getKey()));
        }
        assertNull(t.get(-1));
        assertNull(t.get(1 << 24));
        Object[] all = t.all();
        assertSame(all, t.all(), "no change: the same snapshot");
        Comparator<Object> byId = Comparator.comparingInt(System::identityHashCode);
        Object[] expect = model.values().toArray(new Object[0]);
        Arrays.sort(all, byId);
        Arrays.sort(expect, byId);
        assertArrayEquals(expect, all);
        model.forEach((k, v) -> t.remove(k, v));
        assertEquals(0, t.all().length);
        assertNull(t.get(0x11));
    }

    @Test
    void qp0AndQp1PerPortLiveApart() {
        QpnTable<Object> t = new QpnTable<>(Object[]::new);
        Object smi = qp();
        Object gsi = qp();
        t.putSpecial(1, false, smi);
        t.putSpecial(1, true, gsi);
        assertSame(smi, t.special(1, false));
        assertSame(gsi, t.special(1, true));
        assertNull(t.special(2, true));
        assertNull(t.get(0), "QP0 is not looked up by number");
        assertEquals(2, t.all().length);
        t.removeSpecial(1, true, gsi);
        assertNull(t.special(1, true));
        assertEquals(1, t.all().length);
    }
}
