package org.jrdma.launcher.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** The location an {@code install} argument becomes, as Felix's {@code Util.resolveUri} makes it. */
class InstallCommandTest {
    @Test
    void aUrlWithASchemeIsKeptAsItIs() {
        assertEquals("file:/tmp/h/hello-ulp.jar", InstallCommand.location(Path.of("/work"), "file:/tmp/h/hello-ulp.jar"));
        assertEquals("https://example.org/b.jar", InstallCommand.location(Path.of("/work"), " https://example.org/b.jar "));
    }

    @Test
    void aPathIsResolvedFromTheShellsDirectory() {
        assertEquals("file:///work/run/deploy/b.jar", InstallCommand.location(Path.of("/work/run"), "deploy/b.jar"));
        assertEquals("file:///tmp/b.jar", InstallCommand.location(Path.of("/work/run"), "/tmp/b.jar"));
        assertEquals("file:///work/b.jar", InstallCommand.location(Path.of("/work/run"), "../b.jar"));
    }
}
