package org.jrdma.ulp.iser.initiator;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jrdma.ulp.iser.DiscoveredTarget;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.conn.IserConnection;
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
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.jrdma.ulp.iser.pdu.TextRequest;
import org.jrdma.ulp.iser.pdu.TextResponse;

/**
 * The full feature phase of a discovery session (open-iscsi's {@code -m discovery -t sendtargets}): one
 * {@code SendTargets=All} Text Request, the answer joined over C=1 continuations, then Logout.
 */
final class SendTargetsDiscovery implements ConnectionLogin.FullFeature {
    private static final int RESERVED_TAG = 0xffffffff;
    private static final int TEXT_ITT = 1;
    private static final int LOGOUT_ITT = 2;
    private final InetSocketAddress portal;
    private final CompletableFuture<List<DiscoveredTarget>> result = new CompletableFuture<>();
    private final ByteArrayOutputStream answer = new ByteArrayOutputStream();
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
        send(conn, new TextRequest(false, true, false, 0, TEXT_ITT, RESERVED_TAG, new InitiatorSn(cmdSn++, expStatSn)),
                TextKeys.of("SendTargets", "All").encode());
    }

    private static void send(IserConnection conn, IscsiHeader h, byte[] data) {
        conn.send(new IserPdu(IserHeader.CONTROL, new IscsiPdu(h, data)));
    }

    @Override
    public synchronized void onPdu(IserConnection conn, IserPdu pdu) {
        IscsiHeader h = pdu.pdu().header();
        if (h instanceof TextResponse t) {
            expStatSn = t.sn().statSn() + 1;
            answer.writeBytes(pdu.pdu().data());
            if (t.cont()) { // more keys to come: an empty Text Request with the target's TTT
                send(conn, new TextRequest(false, true, false, 0, TEXT_ITT, t.ttt(), new InitiatorSn(cmdSn++,
                        expStatSn)), new byte[0]);
                return;
            }
            try {
                found = parse(TextKeys.decode(answer.toByteArray()));
            } catch (IscsiProtocolException | IllegalArgumentException e) {
                result.completeExceptionally(new IserIoException("discovery: bad SendTargets answer: "
                        + e.getMessage()));
                conn.close();
                return;
            }
            send(conn, new LogoutRequest(true, LogoutReason.CLOSE_SESSION, LOGOUT_ITT, 0,
                    new InitiatorSn(cmdSn, expStatSn)), new byte[0]);
        } else if (h instanceof LogoutResponse) {
            result.complete(found);
            conn.close();
        } else {
            result.completeExceptionally(new IserIoException("discovery: unexpected " + h.opcode()));
            conn.close();
        }
    }

    /** TargetName=..., then its TargetAddress=ip:port,tag keys (none: the discovery portal, tag 1). */
    private List<DiscoveredTarget> parse(TextKeys keys) {
        List<DiscoveredTarget> out = new ArrayList<>();
        String target = null;
        boolean addressed = false;
        for (TextKey k : keys.keys()) {
            if (k.key().equals("TargetName")) {
                if (target != null && !addressed) {
                    out.add(new DiscoveredTarget(target, portal, 1));
                }
                target = k.value();
                addressed = false;
            } else if (k.key().equals("TargetAddress") && target != null) {
                out.add(address(target, k.value()));
                addressed = true;
            }
        }
        if (target != null && !addressed) {
            out.add(new DiscoveredTarget(target, portal, 1));
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
