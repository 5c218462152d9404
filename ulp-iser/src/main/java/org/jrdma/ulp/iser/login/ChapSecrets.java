package org.jrdma.ulp.iser.login;

/**
 * CHAP credentials of one login (targetcli's {@code auth userid/password/mutual_userid/mutual_password}): the
 * initiator proves {@code userid}/{@code password}; with mutual CHAP the target proves
 * {@code mutualUserid}/{@code mutualPassword} (both null when the target is not authenticated).
 */
public record ChapSecrets(String userid, String password, String mutualUserid, String mutualPassword) {
    public ChapSecrets {
        if (userid == null || password == null) {
            throw new IllegalArgumentException("CHAP needs a userid and a password");
        }
        if ((mutualUserid == null) != (mutualPassword == null)) {
            throw new IllegalArgumentException("mutual CHAP needs both a userid and a password");
        }
    }

    public ChapSecrets(String userid, String password) {
        this(userid, password, null, null);
    }

    public boolean mutual() {
        return mutualUserid != null;
    }

    /** From the policy's {userid, password, mutualUserid, mutualPassword} array. */
    static ChapSecrets of(String[] s) {
        return new ChapSecrets(s[0], s[1], s.length > 2 ? s[2] : null, s.length > 3 ? s[3] : null);
    }
}
