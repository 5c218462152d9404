package org.jrdma.ulp.iser.login;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;

/**
 * The initiator's security stage (open-iscsi {@code auth.c}): offers AuthMethod, answers the target's CHAP
 * challenge, and with mutual CHAP sends its own challenge and checks the target's answer.
 */
final class InitiatorAuth {
    /** What the initiator waits for from the target. */
    enum State { AUTH_METHOD, CHALLENGE, MUTUAL_RESPONSE, DONE }

    private final ChapSecrets secrets;
    private State state = State.AUTH_METHOD;
    private int identifier;
    private byte[] challenge;

    InitiatorAuth(ChapSecrets secrets) {
        this.secrets = secrets;
    }

    /** open-iscsi offers "CHAP,None" unless it must authenticate the target too. */
    String offer() {
        return secrets.mutual() ? "CHAP" : "CHAP,None";
    }

    boolean done() {
        return state == State.DONE;
    }

    /** Whether this side may ask to leave the security stage (its last CHAP keys are out). */
    boolean mayTransit() {
        return state == State.DONE || state == State.MUTUAL_RESPONSE;
    }

    /** The target's security keys; returns the keys to send next. */
    List<TextKey> onKeys(TextKeys keys) throws LoginFailure {
        return switch (state) {
            case AUTH_METHOD -> authMethod(keys);
            case CHALLENGE -> challenge(keys);
            case MUTUAL_RESPONSE -> mutual(keys);
            case DONE -> List.of();
        };
    }

    private List<TextKey> authMethod(TextKeys keys) throws LoginFailure {
        Optional<String> method = keys.get(LoginKey.AUTH_METHOD.key());
        if (method.isEmpty()) {
            return List.of();
        }
        if (method.get().equals("CHAP")) {
            state = State.CHALLENGE;
            return List.of(new TextKey(LoginKey.CHAP_A.key(), Chap.MD5));
        }
        if (method.get().equals("None") && !secrets.mutual()) {
            state = State.DONE;
            return List.of();
        }
        throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "target answered AuthMethod=" + method.get());
    }

    private List<TextKey> challenge(TextKeys keys) throws LoginFailure {
        String a = keys.get(LoginKey.CHAP_A.key()).orElse("");
        int id = keys.get(LoginKey.CHAP_I.key()).map(Chap::parseIdentifier).orElse(-1);
        byte[] c = keys.get(LoginKey.CHAP_C.key()).map(Chap::decode).orElse(null);
        if (!a.equals(Chap.MD5) || id < 0 || c == null || c.length == 0) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "target's CHAP_A/CHAP_I/CHAP_C malformed");
        }
        List<TextKey> out = new ArrayList<>();
        out.add(new TextKey(LoginKey.CHAP_N.key(), secrets.userid()));
        out.add(new TextKey(LoginKey.CHAP_R.key(), Chap.encode(Chap.response(id, secrets.password(), c))));
        if (secrets.mutual()) {
            identifier = Chap.identifier();
            challenge = Chap.challenge();
            out.add(new TextKey(LoginKey.CHAP_I.key(), Integer.toString(identifier)));
            out.add(new TextKey(LoginKey.CHAP_C.key(), Chap.encode(challenge)));
            state = State.MUTUAL_RESPONSE;
        } else {
            state = State.DONE;
        }
        return out;
    }

    private List<TextKey> mutual(TextKeys keys) throws LoginFailure {
        String name = keys.get(LoginKey.CHAP_N.key()).orElse(null);
        byte[] r = keys.get(LoginKey.CHAP_R.key()).map(Chap::decode).orElse(null);
        if (!secrets.mutualUserid().equals(name)
                || !Chap.matches(Chap.response(identifier, secrets.mutualPassword(), challenge), r)) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "the target failed mutual CHAP");
        }
        state = State.DONE;
        return List.of();
    }
}
