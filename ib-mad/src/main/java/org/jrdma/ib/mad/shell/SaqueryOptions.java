package org.jrdma.ib.mad.shell;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.cli.CNum;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.NodeRecord;
import org.jrdma.ib.mad.sa.PathRecord;

/**
 * {@code saquery}'s command line: the options as {@code saquery.c}'s {@code opts[]} table (long name,
 * argument, short letter or value, what it sets) and the query name operand ({@code NR}, {@code PR},
 * {@code MCMR}), parsed into the fields below.
 */
final class SaqueryOptions {
    /** 'Q' (a query by record type), or the letter of -N, -D, -m, -g. */
    char command = 'Q';
    /** The record type of a 'Q' command: its attribute ID (0 until chosen). */
    int queryType;
    String ca;
    int caPort;
    int timeout = 1000;
    /** The {@code -t} value that was refused (then {@link #parse} returned null), or null. */
    String badTimeout;
    int slid;
    int dlid;
    int mlid;
    /** {@code --src-to-dst}'s "slid:dlid" (LIDs or node descriptions), resolved once the SA is bound. */
    String srcDst;
    Gid sgid;
    Gid dgid;
    Gid mgid;
    /** The operands after the query name (a LID, a node description, an MLID). */
    List<String> operands = new ArrayList<>();

    /** One option: {@code struct option} and the {@code switch} case of {@code process_opt}. */
    private enum Opt {
        LIST("list", 'D', false, (o, a) -> o.command = 'D'),
        SRC_TO_DST("src-to-dst", 1, true, (o, a) -> {
            o.srcDst = a;
            o.queryType = PathRecord.ATTR_ID;
        }),
        SGID_TO_DGID("sgid-to-dgid", 2, true, SaqueryOptions::sgidToDgid),
        SLID("slid", 5, true, (o, a) -> o.slid = (int) CNum.strtoul(a) & 0xffff),
        DLID("dlid", 6, true, (o, a) -> o.dlid = (int) CNum.strtoul(a) & 0xffff),
        MLID("mlid", 7, true, (o, a) -> o.mlid = (int) CNum.strtoul(a) & 0xffff),
        SGID("sgid", 14, true, (o, a) -> o.sgid = Gid.parse(a)),
        DGID("dgid", 15, true, (o, a) -> o.dgid = Gid.parse(a)),
        MGID("mgid", 17, true, (o, a) -> o.mgid = Gid.parse(a)),
        CA("Ca", 'C', true, (o, a) -> o.ca = a),
        PORT("Port", 'P', true, (o, a) -> o.caPort = DiagTool.caPort(a)),
        TIMEOUT("timeout", 't', true, SaqueryOptions::timeout),
        PATH(null, 'p', false, (o, a) -> o.queryType = PathRecord.ATTR_ID),
        NODE(null, 'N', false, (o, a) -> o.command = 'N'),
        MEMBERS(null, 'm', false, (o, a) -> o.command = 'm'),
        GROUPS(null, 'g', false, (o, a) -> o.command = 'g');

        final String longName;
        final char val;
        final boolean hasArg;
        final BiConsumer<SaqueryOptions, String> set;

        Opt(String longName, int val, boolean hasArg, BiConsumer<SaqueryOptions, String> set) {
            this.longName = longName;
            this.val = (char) val;
            this.hasArg = hasArg;
            this.set = set;
        }

        static Opt of(int c) {
            for (Opt o : values()) {
                if (o.val == c) {
                    return o;
                }
            }
            return null;
        }
    }

    /** The short options {@code saquery} takes: {@code pNDmgC:P:t:}. */
    private static final String SHORT = "pNDmgC:P:t:";

    private static final Getopt.LongOption[] LONG = Arrays.stream(Opt.values()).filter(o -> o.longName != null)
            .map(o -> new Getopt.LongOption(o.longName, o.hasArg ? Getopt.REQUIRED_ARGUMENT : Getopt.NO_ARGUMENT,
                    o.val))
            .toArray(Getopt.LongOption[]::new);

    /** {@code -t}: a bad value ends option processing, as ibdiag_common's IBEXIT does (the caller reports it). */
    private static void timeout(SaqueryOptions o, String a) {
        Integer t = DiagTool.timeout(a);
        if (t == null) {
            o.badTimeout = a;
            throw new IllegalArgumentException("-t " + a);
        }
        o.timeout = t;
    }

    private static void sgidToDgid(SaqueryOptions o, String a) {
        String[] sd = a.split("-", 2);
        if (sd.length < 2) {
            throw new IllegalArgumentException("--sgid-to-dgid " + a);
        }
        o.sgid = Gid.parse(sd[0]);
        o.dgid = Gid.parse(sd[1]);
        o.queryType = PathRecord.ATTR_ID;
    }

    /**
     * The options of {@code args}, the query name taken from the operands; null for a usage error (an
     * unknown option, a missing or malformed argument), which getopt has reported; with {@link #badTimeout}
     * set when a {@code -t} was refused (the options after it not read).
     */
    static SaqueryOptions parse(String prog, String[] args, StringBuilder stderr) {
        SaqueryOptions o = new SaqueryOptions();
        Getopt g = new Getopt(prog, args, SHORT, LONG, stderr);
        try {
            for (int c; (c = g.next()) != -1; ) {
                Opt opt = Opt.of(c);
                if (opt == null) {
                    return null;
                }
                opt.set.accept(o, g.optarg);
            }
        } catch (IllegalArgumentException | VerbsException e) { // VerbsException: Gid.parse (inet_pton failed: usage)
            return o.badTimeout != null ? o : null;
        }
        o.operands = new ArrayList<>(g.operands());
        if (o.queryType == 0 && o.command == 'Q') {
            o.queryName();
        }
        return o;
    }

    /** The record type named by the first operand ({@code NodeRecord} if none or another word). */
    private void queryName() {
        queryType = NodeRecord.ATTR_ID;
        if (operands.isEmpty()) {
            return;
        }
        int named = switch (operands.get(0).toLowerCase(Locale.ROOT)) {
            case "noderecord", "nr" -> NodeRecord.ATTR_ID;
            case "pathrecord", "pr" -> PathRecord.ATTR_ID;
            case "mcmemberrecord", "mcmr" -> MCMemberRecord.ATTR_ID;
            default -> 0;
        };
        if (named != 0) {
            queryType = named;
            operands.remove(0);
        }
    }
}
