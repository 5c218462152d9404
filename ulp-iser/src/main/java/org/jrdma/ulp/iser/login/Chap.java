package org.jrdma.ulp.iser.login;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * CHAP with MD5 (RFC 1994, RFC 7143 section 12.1.3): response = MD5(identifier || secret || challenge); binary
 * values as {@code 0x} hex (sent) or {@code 0x} hex / {@code 0b} base64 (received).
 */
final class Chap {
    /** CHAP_A=5: MD5, the one algorithm Linux (LIO, open-iscsi) uses. */
    static final String MD5 = "5";
    /** LIO's and open-iscsi's challenge length. */
    static final int CHALLENGE_LENGTH = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Chap() {
    }

    static byte[] challenge() {
        byte[] c = new byte[CHALLENGE_LENGTH];
        RANDOM.nextBytes(c);
        return c;
    }

    static int identifier() {
        return RANDOM.nextInt(256);
    }

    static byte[] response(int identifier, String secret, byte[] challenge) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update((byte) identifier);
            md5.update(secret.getBytes(StandardCharsets.UTF_8));
            md5.update(challenge);
            return md5.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is a required JDK algorithm", e);
        }
    }

    static String encode(byte[] value) {
        return "0x" + HexFormat.of().formatHex(value);
    }

    /** A received binary value, or null when it is neither 0x hex nor 0b base64. */
    static byte[] decode(String value) {
        try {
            if (value.startsWith("0x") || value.startsWith("0X")) {
                String hex = value.substring(2);
                return HexFormat.of().parseHex(hex.length() % 2 == 1 ? "0" + hex : hex);
            }
            if (value.startsWith("0b") || value.startsWith("0B")) {
                return Base64.getDecoder().decode(value.substring(2));
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    /** CHAP_I: a decimal (or 0x hex) identifier 0..255, or -1. */
    static int parseIdentifier(String value) {
        return (int) KeyAnswer.parse(LoginKey.CHAP_I, value);
    }

    static boolean matches(byte[] expected, byte[] got) {
        return got != null && MessageDigest.isEqual(expected, got);
    }
}
