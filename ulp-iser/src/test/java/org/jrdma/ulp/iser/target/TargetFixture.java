package org.jrdma.ulp.iser.target;

import org.jrdma.ulp.iser.conn.MemoryTransport;

/** The runtime under test, listening on {@link TestDirectory#PORTAL}. */
final class TargetFixture {
    private TargetFixture() {
    }

    static IserTargetRuntime runtime(MemoryTransport transport, TargetDirectory directory) {
        IserTargetRuntime rt = new IserTargetRuntime(transport, directory);
        rt.enable(TestDirectory.PORTAL);
        return rt;
    }
}
