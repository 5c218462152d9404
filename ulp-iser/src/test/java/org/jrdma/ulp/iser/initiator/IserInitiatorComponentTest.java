package org.jrdma.ulp.iser.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The component's InitiatorName: open-iscsi's generated form, made once and kept as initiatorname.iscsi is. */
class IserInitiatorComponentTest {

    @Test
    void generatedNameIsKeptAcrossActivations(@TempDir Path dir) throws Exception {
        java.io.File file = dir.resolve(IserInitiatorComponent.NAME_FILE).toFile();
        String first = IserInitiatorComponent.generatedName(file);
        assertTrue(first.matches("iqn\\.2026-12\\.org\\.jrdma:01:[0-9a-f]{12}"), first);
        assertEquals("InitiatorName=" + first + "\n", Files.readString(file.toPath()));
        assertEquals(first, IserInitiatorComponent.generatedName(file), "the second activation reads it back");
        Files.writeString(file.toPath(), "## a comment\nInitiatorName=iqn.1993-08.org.debian:01:abc\n");
        assertEquals("iqn.1993-08.org.debian:01:abc", IserInitiatorComponent.generatedName(file));
    }
}
