package org.jrdma.ulp.iser.login;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jrdma.ulp.iser.pdu.LoginStage;
import org.jrdma.ulp.iser.pdu.LoginStatus;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.jrdma.ulp.iser.pdu.TextValue;

/**
 * One side's view of a login's key exchange: the values in force, what this side supports, which keys the peer
 * has sent. Accepts the peer's offers (answers per {@link KeyAnswer}) and records its answers to this side's own
 * offers. The security keys (AuthMethod, CHAP) are left to the caller.
 */
final class Negotiation {
    private final LoginKey.Sender peer;
    private final Map<LoginKey, String> ours;
    private final Map<LoginKey, String> values = new EnumMap<>(LoginKey.class);
    private final Map<LoginKey, String> peerDeclared = new EnumMap<>(LoginKey.class);
    private final Set<String> peerSent = new HashSet<>();
    private final Map<LoginKey, String> replies = new EnumMap<>(LoginKey.class);

    /**
     * @param peer who the other side is
     * @param ours this side's values: supported lists, preferred numbers and booleans, its declarations
     */
    Negotiation(LoginKey.Sender peer, Map<LoginKey, String> ours) {
        this.peer = peer;
        this.ours = new EnumMap<>(ours);
    }

    /** The value in force: negotiated, else this side's own declaration, else the RFC default. */
    String value(LoginKey key) {
        return values.getOrDefault(key, key.defaultValue());
    }

    /** What the peer declared for {@code key} (names, MaxRecvDataSegmentLength, TargetAlias...). */
    Optional<String> peerValue(LoginKey key) {
        return Optional.ofNullable(peerDeclared.get(key));
    }

    String ours(LoginKey key) {
        return ours.getOrDefault(key, key.defaultValue());
    }

    boolean discovery() {
        return "Discovery".equals(peerDeclared.getOrDefault(LoginKey.SESSION_TYPE, value(LoginKey.SESSION_TYPE)));
    }

    boolean rdma() {
        return "Yes".equals(value(LoginKey.RDMA_EXTENSIONS));
    }

    void set(LoginKey key, String value) {
        values.put(key, value);
    }

    /**
     * Checks the peer's keys of one login request/response sequence: a known key in the wrong stage, from the
     * wrong sender, twice, or over its length fails the login with 0x0200 (as LIO does).
     */
    void check(TextKeys keys, LoginStage csg) throws LoginFailure {
        Set<String> here = new HashSet<>();
        for (TextKey k : keys.keys()) {
            if (!here.add(k.key()) || !peerSent.add(k.key()) && !isChapRound(k.key())) {
                throw new LoginFailure(LoginStatus.INITIATOR_ERROR, "key " + k.key() + " sent twice");
            }
            Optional<LoginKey> known = LoginKey.of(k.key());
            if (known.isEmpty()) {
                continue;
            }
            LoginKey key = known.get();
            if (!key.allowedIn(csg)) {
                throw new LoginFailure(LoginStatus.INITIATOR_ERROR, k.key() + " is not allowed in " + csg);
            }
            if (!key.sentBy(peer)) {
                throw new LoginFailure(LoginStatus.INITIATOR_ERROR, k.key() + " may not be sent by the " + peer);
            }
            if (k.value().length() > key.maxValueLength()) {
                throw new LoginFailure(LoginStatus.INITIATOR_ERROR,
                        k.key() + " value of " + k.value().length() + " bytes");
            }
        }
    }

    /** CHAP keys come back in the next round (CHAP_I/CHAP_C of a mutual challenge), not as a repeat. */
    private static boolean isChapRound(String key) {
        return LoginKey.of(key).map(k -> k.rule() == KeyRule.CHAP).orElse(false);
    }

    /**
     * Accepts the peer's offers and declarations (SessionType and RDMAExtensions first: they decide what is
     * Irrelevant), returning the answers in the order offered. Security keys are skipped.
     */
    List<TextKey> accept(TextKeys offered) {
        for (LoginKey first : List.of(LoginKey.SESSION_TYPE, LoginKey.RDMA_EXTENSIONS)) {
            offered.get(first.key()).ifPresent(v -> acceptOne(first, v));
        }
        List<TextKey> answers = new ArrayList<>();
        for (TextKey k : offered.keys()) {
            Optional<LoginKey> known = LoginKey.of(k.key());
            String answer;
            if (known.isEmpty()) {
                answer = KeyAnswer.NOT_UNDERSTOOD;
            } else if (known.get() == LoginKey.AUTH_METHOD || known.get().rule() == KeyRule.CHAP) {
                continue;
            } else if (known.get() == LoginKey.SESSION_TYPE || known.get() == LoginKey.RDMA_EXTENSIONS) {
                answer = replies.remove(known.get());
            } else {
                answer = acceptOne(known.get(), k.value());
            }
            if (answer != null) {
                answers.add(new TextKey(k.key(), answer));
            }
        }
        clampFirstBurst(answers);
        return answers;
    }

    private String acceptOne(LoginKey key, String offer) {
        String reply = settle(key, offer);
        replies.put(key, reply);
        return reply;
    }

    private String settle(LoginKey key, String offer) {
        if (TextValue.special(offer).isPresent()) {
            return null; // the peer answers NotUnderstood/Irrelevant/Reject to nothing we offered: keep defaults
        }
        if (key.irrelevantFor(discovery(), rdma())) {
            return KeyAnswer.IRRELEVANT;
        }
        if (key.rule() == KeyRule.DECLARATIVE) {
            peerDeclared.put(key, offer);
            return null;
        }
        KeyAnswer a = KeyAnswer.accept(key, offer, ours(key));
        if (a.result() != null) {
            values.put(key, a.result());
        }
        return a.reply();
    }

    /** RFC 7143 13.14: FirstBurstLength must not exceed MaxBurstLength; lower it (as LIO does) and say so. */
    private void clampFirstBurst(List<TextKey> answers) {
        long first = KeyAnswer.parse(LoginKey.FIRST_BURST_LENGTH, value(LoginKey.FIRST_BURST_LENGTH));
        long burst = KeyAnswer.parse(LoginKey.MAX_BURST_LENGTH, value(LoginKey.MAX_BURST_LENGTH));
        if (first > burst && burst > 0 && !discovery()) {
            String v = Long.toString(burst);
            values.put(LoginKey.FIRST_BURST_LENGTH, v);
            answers.removeIf(k -> k.key().equals(LoginKey.FIRST_BURST_LENGTH.key()));
            answers.add(new TextKey(LoginKey.FIRST_BURST_LENGTH.key(), v));
        }
    }

    /**
     * Records the peer's answer to an offer of this side: the result it gives, checked against what this side
     * offered (a MIN key answered above the offer, a boolean AND answered Yes to No, a list item not offered:
     * 0x0200). Reject, Irrelevant and NotUnderstood leave the key at its default.
     */
    void answered(LoginKey key, String offer, String answer) throws LoginFailure {
        if (TextValue.special(answer).isPresent()) {
            return;
        }
        if (key.rule() == KeyRule.DECLARATIVE) {
            peerDeclared.put(key, answer);
            return;
        }
        KeyAnswer check = KeyAnswer.accept(key, answer, offer);
        if (check.result() == null || !check.result().equals(answer)) {
            throw new LoginFailure(LoginStatus.INITIATOR_ERROR,
                    key.key() + "=" + answer + " does not answer the offer " + offer);
        }
        values.put(key, answer);
    }

    /** This side's offers the peer left unanswered where the RFC allows it: their result is the offer. */
    void unanswered(LoginKey key, String offer) {
        if (key.rule() == KeyRule.OR && offer.equals("Yes")) {
            values.put(key, offer);
        }
    }
}
