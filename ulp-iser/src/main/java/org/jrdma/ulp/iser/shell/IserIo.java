package org.jrdma.ulp.iser.shell;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Locale;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.core.cli.Getopt.LongOption;
import org.jrdma.ulp.iser.IserInitiator;
import org.jrdma.ulp.iser.IserSession;

/**
 * {@code iser_io}: a dd-like load on one LUN of a session ({@code -T IQN} or {@code -s SID}): {@code --size}
 * bytes from {@code --offset} in {@code --bs} I/Os, {@code --qd} in flight; {@code --write} fills with the
 * repeated {@code --pattern} bytes, {@code --read} reads, {@code --verify} reads and compares with the pattern;
 * {@code --random} puts each I/O at a random {@code --bs}-aligned offset of the range (4 KiB random loads).
 * Prints bytes moved, MB/s (10^6 bytes, as dd) and IOPS; exit 0, 1 on an I/O error or a miscompare, 2 on a usage
 * error.
 */
public final class IserIo {
    private static final LongOption[] LONG = {
        new LongOption("targetname", Getopt.REQUIRED_ARGUMENT, 'T'),
        new LongOption("sid", Getopt.REQUIRED_ARGUMENT, 's'),
        new LongOption("lun", Getopt.REQUIRED_ARGUMENT, 'L'),
        new LongOption("offset", Getopt.REQUIRED_ARGUMENT, 'o'),
        new LongOption("size", Getopt.REQUIRED_ARGUMENT, 'z'),
        new LongOption("bs", Getopt.REQUIRED_ARGUMENT, 'b'),
        new LongOption("qd", Getopt.REQUIRED_ARGUMENT, 'q'),
        new LongOption("pattern", Getopt.REQUIRED_ARGUMENT, 'p'),
        new LongOption("write", Getopt.NO_ARGUMENT, 'w'),
        new LongOption("read", Getopt.NO_ARGUMENT, 'r'),
        new LongOption("verify", Getopt.NO_ARGUMENT, 'v'),
        new LongOption("random", Getopt.NO_ARGUMENT, 'R'),
    };

    private final IserInitiator initiator;
    private final PrintStream out;
    private final StringBuilder err;

    public IserIo(IserInitiator initiator, PrintStream out, StringBuilder err) {
        this.initiator = initiator;
        this.out = out;
        this.err = err;
    }

    public int main(String... args) {
        try {
            IserIoJob job = parse(args);
            IserIoJob.Result r = job.run();
            out.println(r.summary());
            if (r.failure() != null) {
                err.append("iser_io: ").append(r.failure()).append('\n');
                return 1;
            }
            return 0;
        } catch (Exit e) {
            return e.status();
        } catch (IllegalArgumentException e) {
            err.append("iser_io: ").append(e.getMessage()).append('\n');
            return 2;
        }
    }

    private IserIoJob parse(String[] args) {
        Getopt g = new Getopt("iser_io", args, "T:s:L:o:z:b:q:p:wrvR", LONG, err);
        String target = null;
        String sid = null;
        int lun = 0;
        long offset = 0;
        long size = -1;
        int bs = 4096;
        int qd = 1;
        byte[] pattern = {(byte) 0xa5};
        IserIoJob.Op op = null;
        boolean random = false;
        for (int c; (c = g.next()) != -1;) {
            switch (c) {
                case 'T' -> target = g.optarg;
                case 's' -> sid = g.optarg;
                case 'L' -> lun = (int) number("--lun", g.optarg);
                case 'o' -> offset = number("--offset", g.optarg);
                case 'z' -> size = number("--size", g.optarg);
                case 'b' -> bs = (int) number("--bs", g.optarg);
                case 'q' -> qd = (int) number("--qd", g.optarg);
                case 'p' -> pattern = pattern(g.optarg);
                case 'w' -> op = only(op, IserIoJob.Op.WRITE);
                case 'r' -> op = only(op, IserIoJob.Op.READ);
                case 'v' -> op = only(op, IserIoJob.Op.VERIFY);
                case 'R' -> random = true;
                default -> throw Exit.exit(2);
            }
        }
        if (op == null) {
            throw new IllegalArgumentException("one of --write, --read or --verify is required");
        }
        IserSession s = session(target, sid);
        int block = s.blockSize(lun);
        if (size < 0) {
            size = s.capacity(lun) * block - offset;
        }
        if (bs < 1 || qd < 1 || bs % block != 0 || offset % block != 0 || size % bs != 0) {
            throw new IllegalArgumentException("--offset and --bs must be multiples of the " + block
                    + "-byte block, --size of --bs, --qd at least 1");
        }
        return new IserIoJob(s, lun, offset, size, bs, qd, pattern, op, random);
    }

    private static IserIoJob.Op only(IserIoJob.Op had, IserIoJob.Op now) {
        if (had != null) {
            throw new IllegalArgumentException("only one of --write, --read or --verify");
        }
        return now;
    }

    private IserSession session(String target, String sid) {
        if ((target == null) == (sid == null)) {
            throw new IllegalArgumentException("name the session with -T IQN or -s SID");
        }
        for (IserSession s : initiator.sessions()) {
            if (target != null ? target.equals(s.targetName()) : sid.equals(String.valueOf(s.sid()))) {
                return s;
            }
        }
        throw new IllegalArgumentException("no session " + (target != null ? "to " + target : sid)
                + " (iscsiadm -m session)");
    }

    /** A byte count: decimal, 0x hex, or with a k/m/g (KiB, MiB, GiB) suffix as dd's. */
    static long number(String option, String text) {
        String t = text.toLowerCase(Locale.ROOT);
        long unit = 1;
        char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
        int shift = "kmg".indexOf(last);
        if (shift >= 0) {
            unit = 1L << (10 * (shift + 1));
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = t.startsWith("0x") ? Long.parseLong(t.substring(2), 16) : Long.parseLong(t);
            if (v < 0) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(v, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("invalid " + option + " '" + text + "'");
        }
    }

    static byte[] pattern(String hex) {
        String h = hex.startsWith("0x") ? hex.substring(2) : hex;
        try {
            byte[] p = HexFormat.of().parseHex(h);
            if (p.length == 0) {
                throw new IllegalArgumentException();
            }
            return p;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --pattern '" + hex + "': hex bytes such as a5 or deadbeef");
        }
    }

    /** Fills {@code b} with the pattern as it falls at byte {@code offset} of the LUN. */
    static void fill(ByteBuffer b, byte[] pattern, long offset) {
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, pattern[(int) ((offset + i) % pattern.length)]);
        }
    }
}
