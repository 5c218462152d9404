package org.jrdma.ulp.iser.login;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;

/**
 * The target's security stage (RFC 7143 section 12.1.3, LIO {@code iscsi_target_auth.c}): AuthMethod, then for
 * CHAP the algorithm (CHAP_A=5), the challenge (CHAP_I, CHAP_C from SecureRandom), the initiator's CHAP_N/CHAP_R
 * checked against the secret, and with mutual CHAP the target's own CHAP_N/CHAP_R to the initiator's challenge.
 * Every failure is 0x0201.
 */
final class TargetAuth {
    /** Where the exchange is: each state names what the target waits for. */
    enum State { AUTH_METHOD, CHAP_A, CHAP_RESPONSE, DONE }

    private final Optional<ChapSecrets> secrets;
    private State state = State.AUTH_METHOD;
    private int identifier;
    private byte[] challenge;

    TargetAuth(Optional<ChapSecrets> secrets) {
        this.secrets = secrets;
    }

    /** Whether the initiator may leave the security stage (or skip it). */
    boolean done() {
        return state == State.DONE || secrets.isEmpty();
    }

    /** Whether CHAP is required and the initiator has not even offered an AuthMethod yet. */
    boolean notStarted() {
        return secrets.isPresent() && state == State.AUTH_METHOD;
    }

    /** One security-stage request's AuthMethod/CHAP keys; adds the answers to {@code out}. */
    void onKeys(TextKeys keys, List<TextKey> out) throws LoginFailure {
        switch (state) {
            case AUTH_METHOD -> authMethod(keys, out);
            case CHAP_A -> algorithm(keys, out);
            case CHAP_RESPONSE -> response(keys, out);
            case DONE -> noChapKeys(keys);
        }
    }

    private void authMethod(TextKeys keys, List<TextKey> out) throws LoginFailure {
        Optional<String> offer = keys.get(LoginKey.AUTH_METHOD.key());
        noChapKeys(keys);
        if (offer.isEmpty()) {
            return;
        }
        KeyAnswer a = KeyAnswer.accept(LoginKey.AUTH_METHOD, offer.get(), secrets.isPresent() ? "CHAP" : "None");
        if (a.result() == null) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "AuthMethod=" + offer.get() + " offers "
                    + (secrets.isPresent() ? "no CHAP, which this target requires" : "no None"));
        }
        out.add(new TextKey(LoginKey.AUTH_METHOD.key(), a.reply()));
        state = a.result().equals("CHAP") ? State.CHAP_A : State.DONE;
    }

    private void algorithm(TextKeys keys, List<TextKey> out) throws LoginFailure {
        String offer = keys.get(LoginKey.CHAP_A.key()).orElseThrow(
                () -> new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "CHAP without CHAP_A"));
        if (KeyAnswer.accept(LoginKey.AUTH_METHOD, offer, Chap.MD5).result() == null) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "CHAP_A=" + offer + " offers no MD5 (5)");
        }
        identifier = Chap.identifier();
        challenge = Chap.challenge();
        out.add(new TextKey(LoginKey.CHAP_A.key(), Chap.MD5));
        out.add(new TextKey(LoginKey.CHAP_I.key(), Integer.toString(identifier)));
        out.add(new TextKey(LoginKey.CHAP_C.key(), Chap.encode(challenge)));
        state = State.CHAP_RESPONSE;
    }

    private void response(TextKeys keys, List<TextKey> out) throws LoginFailure {
        ChapSecrets s = secrets.orElseThrow();
        String name = require(keys, LoginKey.CHAP_N);
        byte[] r = Chap.decode(require(keys, LoginKey.CHAP_R));
        if (!name.equals(s.userid()) || !Chap.matches(Chap.response(identifier, s.password(), challenge), r)) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "CHAP_N=" + name + ": wrong name or response");
        }
        Optional<String> mutualId = keys.get(LoginKey.CHAP_I.key());
        Optional<String> mutualChallenge = keys.get(LoginKey.CHAP_C.key());
        if (mutualId.isPresent() || mutualChallenge.isPresent()) {
            out.addAll(mutual(s, mutualId, mutualChallenge));
        }
        state = State.DONE;
    }

    /** The target's answer to the initiator's challenge (mutual CHAP). */
    private List<TextKey> mutual(ChapSecrets s, Optional<String> id, Optional<String> c) throws LoginFailure {
        int i = id.map(Chap::parseIdentifier).orElse(-1);
        byte[] ch = c.map(Chap::decode).orElse(null);
        if (i < 0 || ch == null || ch.length == 0) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "mutual CHAP_I/CHAP_C malformed or missing");
        }
        if (!s.mutual()) {
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "mutual CHAP asked, no mutual secret set");
        }
        if (Arrays.equals(ch, challenge)) {
            // RFC 7143 12.1.3: a reflected challenge is an attack on the other direction
            throw new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "mutual CHAP_C repeats the target's challenge");
        }
        return List.of(new TextKey(LoginKey.CHAP_N.key(), s.mutualUserid()),
                new TextKey(LoginKey.CHAP_R.key(), Chap.encode(Chap.response(i, s.mutualPassword(), ch))));
    }

    private static String require(TextKeys keys, LoginKey key) throws LoginFailure {
        return keys.get(key.key()).orElseThrow(
                () -> new LoginFailure(LoginStatus.AUTHENTICATION_FAILURE, "CHAP without " + key.key()));
    }

    private void noChapKeys(TextKeys keys) throws LoginFailure {
        for (TextKey k : keys.keys()) {
            if (LoginKey.of(k.key()).map(x -> x.rule() == KeyRule.CHAP).orElse(false)) {
                throw new LoginFailure(LoginStatus.INITIATOR_ERROR, k.key() + " out of the CHAP exchange");
            }
        }
    }
}
