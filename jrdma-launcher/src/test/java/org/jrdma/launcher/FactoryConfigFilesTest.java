package org.jrdma.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Dictionary;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FactoryConfigFilesTest {

    @Test
    void r7FactoryNamesAreSplitAtTheFirstTilde() {
        assertArrayEquals(new String[] { "org.jrdma.hw.rxe", "rxe0" }, FactoryConfigFiles.parse("org.jrdma.hw.rxe~rxe0.cfg"));
        assertArrayEquals(new String[] { "org.jrdma.ulp.iser.target", "t1-a~b" },
                FactoryConfigFiles.parse("org.jrdma.ulp.iser.target~t1-a~b.cfg"));
    }

    @Test
    void aBundlesLogAdminContextIsOnePidWhateverItsBsnHolds() {
        assertArrayEquals(new String[] { "org.osgi.service.log.admin|hw-rxe", null },
                FactoryConfigFiles.parse("org.osgi.service.log.admin|hw-rxe.cfg"));
        assertNull(FactoryConfigFiles.parse("org.osgi.service.log.admin.cfg"), "the root context: FileInstall's");
        assertNull(FactoryConfigFiles.parse("org.osgi.service.log.admin|.cfg"), "no BSN");
    }

    @Test
    void otherFilesAreLeftToFileInstall() {
        assertNull(FactoryConfigFiles.parse("org.jrdma.hw.rxe-rxe0.cfg"), "FileInstall's own factory form");
        assertNull(FactoryConfigFiles.parse("org.jrdma.ib.sm.cfg"), "a singleton PID");
        assertNull(FactoryConfigFiles.parse("org.jrdma.hw.rxe~rxe0.config"), ".config: FileInstall's typed format");
        assertNull(FactoryConfigFiles.parse("~rxe0.cfg"), "no factory PID");
        assertNull(FactoryConfigFiles.parse("org.jrdma.hw.rxe~.cfg"), "no name");
        assertNull(FactoryConfigFiles.parse("org.jrdma.hw.rxe~rxe0.cfg~"), "an editor's backup");
    }

    @Test
    void propertiesAreReadAsStringsTrimmed(@TempDir Path dir) throws IOException {
        File f = dir.resolve("org.jrdma.hw.rxe~rxe0.cfg").toFile();
        Files.writeString(f.toPath(), "# rxe0 on lo\nnetdev = lo  \naddr=127.0.0.1\nmtu: 1500\n");
        Dictionary<String, Object> d = FactoryConfigFiles.read(f);
        assertEquals(3, d.size());
        assertEquals("lo", d.get("netdev"));
        assertEquals("127.0.0.1", d.get("addr"));
        assertEquals("1500", d.get("mtu"));
    }

    @Test
    void theSourceFileOfAConfigurationIsOursOrFileInstalls(@TempDir Path dir) {
        java.util.Hashtable<String, Object> p = new java.util.Hashtable<>();
        assertNull(FactoryConfigFiles.sourceOf(p), "made from the shell or by code");
        assertNull(FactoryConfigFiles.sourceOf(null));
        p.put(FactoryConfigFiles.FILEINSTALL_FILENAME, dir.resolve("org.jrdma.hw.rxe-rxe0.cfg").toUri().toString());
        assertEquals(dir.resolve("org.jrdma.hw.rxe-rxe0.cfg").toFile(), FactoryConfigFiles.sourceOf(p));
        p.put(FactoryConfigFiles.ETC_FILE, "/home/x/run/etc/org.jrdma.hw.rxe~rxe0.cfg");
        assertEquals(new File("/home/x/run/etc/org.jrdma.hw.rxe~rxe0.cfg"), FactoryConfigFiles.sourceOf(p));
    }
}
