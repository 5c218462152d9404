package org.jrdma.ulp.iser.target;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Logins read the tree while targetcli edits it: no exception, and the listeners end balanced. */
class TargetTreeConcurrencyTest {
    @Test
    void readersDuringEdits() throws Exception {
        TargetTree tree = new TargetTree();
        RecordingPortalControl rt = new RecordingPortalControl();
        tree.attach(rt);
        InetSocketAddress portal = new InetSocketAddress("192.0.2.1", 3260);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Integer>> readers = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            readers.add(pool.submit(() -> {
                int rounds = 0;
                while (!stop.get()) {
                    rounds++;
                    for (var st : tree.sendTargets("iqn.2026-12.org.jrdma:i", portal)) {
                        var pg = tree.portalGroup(st.targetName(), portal);
                        if (pg.isPresent()) {
                            pg.get().luns("iqn.2026-12.org.jrdma:i");
                            pg.get().chap("iqn.2026-12.org.jrdma:i");
                        }
                    }
                }
                return rounds;
            }));
        }
        Future<?> editor = pool.submit(() -> {
            for (int i = 0; i < 300; i++) {
                String iqn = "iqn.2026-12.org.jrdma:t" + (i % 5);
                StorageObject so = tree.createRamdisk("rd" + i, 1 << 20);
                Tpg tpg = tree.createTarget(iqn).createTpg(null);
                tpg.setAttribute("generate_node_acls", 1);
                tpg.enable(true);
                tpg.createLun(so, null, false, null);
                tpg.createPortal("192.0.2.1", 3260);
                tpg.enableIser("192.0.2.1", 3260, true);
                tree.deleteTarget(iqn);
                tree.deleteStorageObject("ramdisk", "rd" + i);
            }
            return null;
        });
        editor.get(60, TimeUnit.SECONDS);
        stop.set(true);
        for (Future<Integer> f : readers) {
            assertTrue(f.get(10, TimeUnit.SECONDS) > 0, "the reader ran (and threw nothing)");
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        List<String> calls = rt.drain();
        assertEquals(600, calls.size());
        for (int i = 0; i < calls.size(); i += 2) {
            assertEquals(List.of("enable 192.0.2.1:3260", "disable 192.0.2.1:3260"), calls.subList(i, i + 2));
        }
        assertTrue(tree.targets().isEmpty());
    }
}
