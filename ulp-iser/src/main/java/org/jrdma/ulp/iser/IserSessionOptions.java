package org.jrdma.ulp.iser;

import java.time.Duration;

/**
 * A node's session settings, named as in open-iscsi's {@code iscsid.conf} and with its defaults.
 *
 * @param cmdsMax            {@code node.session.cmds_max} (128): commands outstanding at once per session
 * @param queueDepth         {@code node.session.queue_depth} (32): reported per LUN, as Linux's sdev
 *                           queue depth; the session enforces {@code cmdsMax}
 * @param replacementTimeout {@code node.session.timeo.replacement_timeout} (120 s): how long I/O waits for a
 *                           lost connection to be reinstated before it fails
 * @param loginTimeout       {@code node.conn[0].timeo.login_timeout} (15 s)
 * @param logoutTimeout      {@code node.conn[0].timeo.logout_timeout} (15 s)
 * @param noopOutInterval    {@code node.conn[0].timeo.noop_out_interval} (5 s; zero: no pings)
 * @param noopOutTimeout     {@code node.conn[0].timeo.noop_out_timeout} (5 s): a ping unanswered this long
 *                           drops the connection
 * @param commandTimeout     sd's command timeout ({@code /sys/block/sdX/device/timeout}, 30 s): a command
 *                           unanswered this long drops the connection (recovery re-issues it); after 5 such
 *                           retries (sd's SD_MAX_RETRIES) it fails
 * @param initiatorName      overrides the service's InitiatorName (null: the service's)
 * @param initiatorAlias     InitiatorAlias sent at login (null: none)
 * @param chapUsername       {@code node.session.auth.username} (null: AuthMethod=None)
 * @param chapPassword       {@code node.session.auth.password}
 * @param chapUsernameIn     {@code node.session.auth.username_in}: mutual CHAP (null: one-way)
 * @param chapPasswordIn     {@code node.session.auth.password_in}
 */
public record IserSessionOptions(int cmdsMax, int queueDepth, Duration replacementTimeout, Duration loginTimeout,
        Duration logoutTimeout, Duration noopOutInterval, Duration noopOutTimeout, Duration commandTimeout,
        String initiatorName, String initiatorAlias, String chapUsername, String chapPassword,
        String chapUsernameIn, String chapPasswordIn) {

    public IserSessionOptions {
        if (cmdsMax < 1 || queueDepth < 1) {
            throw new IllegalArgumentException("cmds_max " + cmdsMax + " and queue_depth " + queueDepth
                    + " must be at least 1");
        }
        requirePositive("replacement_timeout", replacementTimeout);
        requirePositive("login_timeout", loginTimeout);
        requirePositive("logout_timeout", logoutTimeout);
        requirePositive("noop_out_timeout", noopOutTimeout);
        requirePositive("command timeout", commandTimeout);
        if (noopOutInterval.isNegative()) {
            throw new IllegalArgumentException("noop_out_interval " + noopOutInterval + " is negative");
        }
        if ((chapUsername == null) != (chapPassword == null)
                || (chapUsernameIn == null) != (chapPasswordIn == null)
                || (chapUsernameIn != null && chapUsername == null)) {
            throw new IllegalArgumentException("CHAP needs username and password (and mutual CHAP one-way CHAP)");
        }
    }

    private static void requirePositive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " " + d + " must be positive");
        }
    }

    /** open-iscsi's defaults. */
    public static IserSessionOptions defaults() {
        return new IserSessionOptions(128, 32, Duration.ofSeconds(120), Duration.ofSeconds(15),
                Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(30), null,
                null, null, null, null, null);
    }

    public IserSessionOptions withQueue(int newCmdsMax, int newQueueDepth) {
        return new IserSessionOptions(newCmdsMax, newQueueDepth, replacementTimeout, loginTimeout, logoutTimeout,
                noopOutInterval, noopOutTimeout, commandTimeout, initiatorName, initiatorAlias, chapUsername,
                chapPassword, chapUsernameIn, chapPasswordIn);
    }

    public IserSessionOptions withTimeouts(Duration replacement, Duration login, Duration noopInterval,
            Duration noopTimeout) {
        return new IserSessionOptions(cmdsMax, queueDepth, replacement, login, logoutTimeout, noopInterval,
                noopTimeout, commandTimeout, initiatorName, initiatorAlias, chapUsername, chapPassword,
                chapUsernameIn, chapPasswordIn);
    }

    public IserSessionOptions withCommandTimeout(Duration timeout) {
        return new IserSessionOptions(cmdsMax, queueDepth, replacementTimeout, loginTimeout, logoutTimeout,
                noopOutInterval, noopOutTimeout, timeout, initiatorName, initiatorAlias, chapUsername, chapPassword,
                chapUsernameIn, chapPasswordIn);
    }

    public IserSessionOptions withInitiator(String name, String alias) {
        return new IserSessionOptions(cmdsMax, queueDepth, replacementTimeout, loginTimeout, logoutTimeout,
                noopOutInterval, noopOutTimeout, commandTimeout, name, alias, chapUsername, chapPassword,
                chapUsernameIn, chapPasswordIn);
    }

    /** CHAP; {@code usernameIn}/{@code passwordIn} null for one-way. */
    public IserSessionOptions withChap(String username, String password, String usernameIn, String passwordIn) {
        return new IserSessionOptions(cmdsMax, queueDepth, replacementTimeout, loginTimeout, logoutTimeout,
                noopOutInterval, noopOutTimeout, commandTimeout, initiatorName, initiatorAlias, username, password,
                usernameIn, passwordIn);
    }
}
