package org.jrdma.testsupport;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/**
 * Finds a test vector (a Linux capture, its tshark decode, a tool's log) on the test classpath, under
 * {@code vectors/}: each module keeps the vectors its tests read in {@code src/test/resources/vectors/}, so a
 * fresh clone tests on its own. Maven copies them to {@code target/test-classes}, a directory, which is why a
 * vector is a {@link Path} (tests list a capture directory and read files with {@code java.nio.file}).
 */
public final class TestVectors {
    private static final String ROOT = "vectors/";

    private TestVectors() {
    }

    /**
     * The vector file or directory {@code name} under {@code vectors/} on the test classpath, e.g.
     * {@code path("roce/rc_pingpong.pcap")} or {@code path("roce")} for every capture.
     *
     * @throws IllegalStateException if no classpath entry has it, or it is inside a jar
     */
    public static Path path(String name) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        URL url = (loader != null ? loader : TestVectors.class.getClassLoader()).getResource(ROOT + name);
        if (url == null) {
            throw new IllegalStateException("no " + ROOT + name + " on the test classpath (a module's vectors live in"
                    + " its src/test/resources/" + ROOT + ")");
        }
        if (!"file".equals(url.getProtocol())) {
            throw new IllegalStateException(ROOT + name + " is not a file on disk: " + url);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url.toString(), e);
        }
    }
}
