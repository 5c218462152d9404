package org.jrdma.ulp.iser.login;

import java.util.Arrays;
import java.util.List;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.TextValue;

/**
 * The acceptor's side of one negotiated key (RFC 7143 section 6.2): from the offer and this side's own value,
 * the value in force and the answer to send.
 *
 * @param result the value in force after the exchange, or null (unchanged: the key keeps its previous value)
 * @param reply  the answer to send, or null when the RFC lets the answer be left out and LIO leaves it out
 */
record KeyAnswer(String result, String reply) {
    static final String REJECT = TextValue.Special.REJECT.text();
    static final String IRRELEVANT = TextValue.Special.IRRELEVANT.text();
    static final String NOT_UNDERSTOOD = TextValue.Special.NOT_UNDERSTOOD.text();

    static KeyAnswer reject() {
        return new KeyAnswer(null, REJECT);
    }

    /** Settles {@code key}: {@code offer} from the peer, {@code ours} what this side supports or prefers. */
    static KeyAnswer accept(LoginKey key, String offer, String ours) {
        return switch (key.rule()) {
            case LIST -> list(offer, ours);
            case AND, OR -> bool(key, offer, ours);
            case MIN, MAX, MIN_ZERO_UNLIMITED -> number(key, offer, ours);
            case DECLARATIVE, CHAP -> new KeyAnswer(offer, null);
        };
    }

    /** The first offered value this side supports; none is a Reject. */
    private static KeyAnswer list(String offer, String ours) {
        List<String> supported = Arrays.asList(ours.split(","));
        for (String item : offer.split(",", -1)) {
            if (supported.contains(item)) {
                return new KeyAnswer(item, item);
            }
        }
        return reject();
    }

    private static KeyAnswer bool(LoginKey key, String offer, String ours) {
        if (!offer.equals("Yes") && !offer.equals("No")) {
            return reject();
        }
        boolean o = offer.equals("Yes");
        boolean result = key.rule() == KeyRule.AND ? o && ours.equals("Yes") : o || ours.equals("Yes");
        String value = TextValue.bool(result);
        // RFC 7143 6.2.2: for OR and an offered Yes the answer is optional; LIO leaves it out (the captures)
        boolean optional = key.rule() == KeyRule.OR && o;
        return new KeyAnswer(value, optional ? null : value);
    }

    private static KeyAnswer number(LoginKey key, String offer, String ours) {
        long o = parse(key, offer);
        if (o < 0) {
            return reject();
        }
        long mine = parse(key, ours);
        long result = switch (key.rule()) {
            case MAX -> Math.max(o, mine);
            case MIN_ZERO_UNLIMITED -> o == 0 ? mine : mine == 0 ? o : Math.min(o, mine);
            default -> Math.min(o, mine);
        };
        String value = Long.toString(result);
        return new KeyAnswer(value, value);
    }

    /** A numeric value of {@code key} in its admissible range, or -1. */
    static long parse(LoginKey key, String value) {
        try {
            long v = TextValue.numeric(key.key(), value);
            return v >= key.min() && v <= key.max() ? v : -1;
        } catch (IscsiProtocolException e) {
            return -1;
        }
    }
}
