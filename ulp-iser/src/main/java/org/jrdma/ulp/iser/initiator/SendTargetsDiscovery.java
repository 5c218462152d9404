package org.jrdma.ulp.iser.initiator;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jrdma.ulp.iser.DiscoveredTarget;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.login.SendTargetsText;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiHeader;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LogoutReason;
import org.jrdma.ulp.iser.pdu.LogoutRequest;
import org.jrdma.ulp.iser.pdu.LogoutResponse;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.RejectReason;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextResponse;

/**
 * The full feature phase of a discovery session (open-iscsi's {@code -m discovery -t sendtargets}): one
 * {@code SendTargets=All} Text Request, the answer joined over C=1 continuations (the login package's
 * {@link SendTargetsText}), then Logout; each TargetAddress becomes one {@link DiscoveredTarget}.
 */
final class SendTargetsDiscovery implements ConnectionLogin.FullFeature {
    private static final int TEXT_ITT = 1;
    private static final int LOGOUT_ITT = 2;
    private final InetSocketAddress portal;
    private final CompletableFuture<List<DiscoveredTarget>> result = new CompletableFuture<>();
    private final SendTargetsText.Collector answer = new SendTargetsText.Collector();
    private List<DiscoveredTarget> found;
    private volatile IserConnection conn;
    private int cmdSn;
    private int expStatSn;

    SendTargetsDiscovery(InetSocketAddress portal) {
        this.portal = portal;
    }

    /** The answer, or a failure once {@code timeout} passed (the connection is then closed). */
    CompletableFuture<List<DiscoveredTarget>> result(java.time.Duration timeout) {
        return result.orTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> {
                    IserConnection c = conn;
                    if (c != null) {
                        c.close();
                    }
                    Throwable cause = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
                    return CompletableFuture.failedFuture(cause instanceof java.util.concurrent.TimeoutException
                            ? new LoginFailedException(LoginFailedException.Kind.TIMEOUT,
                                    "discovery: no SendTargets answer from " + portal + " within " + timeout)
                            : cause);
                });
    }

    @Override
    public synchronized void attach(IserConnection conn, SessionParams params, TargetSn window) {
        this.conn = conn;
        cmdSn = params.expCmdSn();
        expStatSn = params.statSn() + 1;
        send(conn, SendTargetsText.request(TEXT_ITT, new InitiatorSn(cmdSn++, expStatSn)));
    }

    private static void send(IserConnection conn, IscsiPdu pdu) {
        conn.send(new IserPdu(IserHeader.CONTROL, pdu));
    }

    @Override
    public synchronized void onPdu(IserConnection conn, IserPdu pdu) {
        IscsiHeader h = pdu.pdu().header();
        try {
            if (h instanceof TextResponse t) {
                expStatSn = t.sn().statSn() + 1;
                Optional<IscsiPdu> more = answer.onResponse(pdu.pdu(), new InitiatorSn(cmdSn, expStatSn));
                if (more.isPresent()) { // a C=1 piece: ask for the next one with the target's TTT
                    cmdSn++;
                    send(conn, more.get());
                    return;
                }
                found = convert(answer.targets());
                send(conn, new IscsiPdu(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, LOGOUT_ITT, 0,
                        new InitiatorSn(cmdSn, expStatSn)), new byte[0]));
            } else if (h instanceof LogoutResponse) {
                result.complete(found);
                conn.close();
            } else if (h instanceof Reject r) { // say why: the reason is all an operator has to go on
                throw new IscsiProtocolException(r.reason(), "the target rejected our "
                        + (found == null ? "SendTargets Text Request" : "Logout Request") + " with reason "
                        + r.reason() + String.format(" (0x%02x)", r.reason().code()));
            } else {
                throw new IscsiProtocolException(RejectReason.PROTOCOL_ERROR, "unexpected " + h.opcode());
            }
        } catch (IscsiProtocolException | IllegalArgumentException e) {
            result.completeExceptionally(new IserIoException("discovery: bad SendTargets answer: "
                    + e.getMessage()));
            conn.close();
        }
    }

    /** Each TargetAddress as one entry; a target without any: the discovery portal, tag 1 (RFC 7143 13.8). */
    private List<DiscoveredTarget> convert(List<org.jrdma.ulp.iser.login.DiscoveredTarget> targets) {
        List<DiscoveredTarget> out = new ArrayList<>();
        for (org.jrdma.ulp.iser.login.DiscoveredTarget t : targets) {
            if (t.targetAddresses().isEmpty()) {
                out.add(new DiscoveredTarget(t.targetName(), portal, 1));
            }
            for (String a : t.targetAddresses()) {
                out.add(address(t.targetName(), a));
            }
        }
        return out;
    }

    /** {@code 192.0.2.11:3260,1} or {@code [fd00::1]:3260,1} (RFC 7143 13.8). */
    static DiscoveredTarget address(String target, String value) {
        int comma = value.lastIndexOf(',');
        String hostPort = comma < 0 ? value : value.substring(0, comma);
        int tag = comma < 0 ? 1 : Integer.parseInt(value.substring(comma + 1));
        int colon = hostPort.lastIndexOf(':');
        boolean hasPort = colon > hostPort.lastIndexOf(']');
        String host = hasPort ? hostPort.substring(0, colon) : hostPort;
        int port = hasPort ? Integer.parseInt(hostPort.substring(colon + 1)) : 3260;
        host = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return new DiscoveredTarget(target, new InetSocketAddress(host, port), tag);
    }

    @Override
    public void onDisconnected(IserConnection conn, String reason) {
        result.completeExceptionally(new IserIoException("discovery: connection closed: " + reason));
    }
}
