package org.jrdma.ulp.iser.initiator;

import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.TargetSn;

/**
 * The session's sequence numbers (RFC 7143 section 4.2.2): the next CmdSN, the target's command window
 * ExpCmdSN..MaxCmdSN, and ExpStatSN. Compares in serial number arithmetic (RFC 1982). Not thread-safe: the
 * session's lock guards it.
 */
final class CommandWindow {
    private int cmdSn;
    private int expCmdSn;
    private int maxCmdSn;
    private int expStatSn;

    /** After a login: the first command carries {@code cmdSn}; the final login response's numbers. */
    void reset(int firstCmdSn, int statSn, TargetSn login) {
        cmdSn = firstCmdSn;
        expCmdSn = firstCmdSn;
        maxCmdSn = firstCmdSn; // at least the one command RFC 7143 lets us send
        expStatSn = statSn + 1;
        if (login != null) {
            update(login);
        }
    }

    /** Whether a non-immediate command may go now (its CmdSN inside the window). */
    boolean open() {
        return !after(cmdSn, maxCmdSn);
    }

    /** The numbers of the next non-immediate command, consuming its CmdSN. */
    InitiatorSn nextCommand() {
        return new InitiatorSn(cmdSn++, expStatSn);
    }

    /** The numbers of an immediate PDU (NOP-Out, Logout): CmdSN not consumed. */
    InitiatorSn immediate() {
        return new InitiatorSn(cmdSn, expStatSn);
    }

    /** A target PDU's window; ignored when MaxCmdSN < ExpCmdSN - 1 (RFC 7143 4.2.2.1) or older. */
    void update(TargetSn sn) {
        if (after(sn.expCmdSn() - 1, sn.maxCmdSn())) {
            return;
        }
        if (after(sn.expCmdSn(), expCmdSn)) {
            expCmdSn = sn.expCmdSn();
        }
        if (after(sn.maxCmdSn(), maxCmdSn)) {
            maxCmdSn = sn.maxCmdSn();
        }
    }

    /** A PDU that carries a status numbered {@code statSn}. */
    void acknowledge(int statSn) {
        if (!after(expStatSn, statSn + 1)) {
            expStatSn = statSn + 1;
        }
    }

    int cmdSn() {
        return cmdSn;
    }

    int maxCmdSn() {
        return maxCmdSn;
    }

    int expStatSn() {
        return expStatSn;
    }

    /** RFC 1982 for 32 bits: {@code a} is after {@code b}. */
    static boolean after(int a, int b) {
        return a - b > 0;
    }
}
