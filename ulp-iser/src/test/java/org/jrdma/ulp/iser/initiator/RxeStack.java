package org.jrdma.ulp.iser.initiator;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeMap;
import org.jrdma.ulp.iser.conn.IserConnectionConfig;
import org.jrdma.ulp.iser.conn.RdmaIserTransport;
import org.jrdma.ulp.iser.conn.TestFabrics;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.jrdma.ulp.iser.scsi.ScsiLun;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.jrdma.ulp.iser.target.TargetDirectory;

/**
 * The whole stack on verbs for the initiator's rxe tests: two hw-rxe devices, an RdmaIserTransport on each side,
 * a target runtime over a one-LUN ramdisk directory and the initiator service; closed in that order reversed.
 */
final class RxeStack implements AutoCloseable {
    final TestFabrics fabric = TestFabrics.rxe();
    final InetSocketAddress portal = fabric.portal(3260);
    final RdmaIserTransport targetTransport = new RdmaIserTransport(fabric.cm(), IserConnectionConfig.defaults());
    final RdmaIserTransport initiatorTransport = new RdmaIserTransport(fabric.cm(),
            fabric.initiatorConfig(IserConnectionConfig.defaults()));
    final IserTargetRuntime target;
    final IserInitiatorService initiator;

    /** {@code runtime} makes the target over its transport and a directory of one ramdisk LUN of {@code size}. */
    RxeStack(String initiatorName, long size,
            java.util.function.BiFunction<RdmaIserTransport, TargetDirectory, IserTargetRuntime> runtime) {
        target = runtime.apply(targetTransport, new InitiatorTargetEndToEndTest.Directory(new LunTable(
                new TreeMap<>(Map.of(0, new ScsiLun(new RamdiskBackstore("rd0", size), false))))));
        initiator = new IserInitiatorService(initiatorTransport, initiatorName);
    }

    @Override
    public void close() {
        initiator.close();
        target.close();
        initiatorTransport.close();
        targetTransport.close();
        fabric.close();
    }
}
