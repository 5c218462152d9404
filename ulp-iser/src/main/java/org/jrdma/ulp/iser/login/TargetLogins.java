package org.jrdma.ulp.iser.login;

import java.net.InetSocketAddress;

/** Makes the target's side of a connection's login. */
public final class TargetLogins {
    private TargetLogins() {
    }

    /**
     * A login for one new connection on {@code portal}, answering with LIO's values (iSER: RDMAExtensions=Yes,
     * TargetRecvDataSegmentLength=8192, InitiatorRecvDataSegmentLength up to 262144, MaxBurstLength 262144,
     * FirstBurstLength 65536, InitialR2T=Yes, ImmediateData=Yes, ErrorRecoveryLevel 0, MaxConnections 1,
     * digests None).
     */
    public static TargetLogin create(TargetLoginPolicy policy, InetSocketAddress portal) {
        return new TargetLoginMachine(policy, portal, TargetLoginMachine.lioValues());
    }
}
