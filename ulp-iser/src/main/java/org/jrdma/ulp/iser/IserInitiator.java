package org.jrdma.ulp.iser;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The iSER initiator service (open-iscsi's iscsid over ib_iser): SendTargets discovery, login to a target on a
 * portal, and the sessions logged in now.
 */
public interface IserInitiator {

    /** This host's iSCSI name (open-iscsi's {@code InitiatorName} of {@code /etc/iscsi/initiatorname.iscsi}). */
    String initiatorName();

    /**
     * A discovery session on {@code portal}: login with SessionType=Discovery, {@code SendTargets=All}, logout.
     * One entry per (target, portal) pair the target answered, in its order.
     */
    CompletionStage<List<DiscoveredTarget>> discover(InetSocketAddress portal);

    /**
     * Logs in to {@code targetName} on {@code portal} and scans its LUNs (REPORT LUNS, INQUIRY, READ CAPACITY(16)
     * as Linux's sd does). Fails with an {@link IserIoException} naming the login status (e.g. "target not
     * found") or a transport error.
     */
    CompletionStage<IserSession> login(InetSocketAddress portal, String targetName, IserSessionOptions options);

    /** {@link #login(InetSocketAddress, String, IserSessionOptions)} with open-iscsi's defaults. */
    default CompletionStage<IserSession> login(InetSocketAddress portal, String targetName) {
        return login(portal, targetName, IserSessionOptions.defaults());
    }

    /** The sessions not logged out, by SID. */
    List<IserSession> sessions();
}
