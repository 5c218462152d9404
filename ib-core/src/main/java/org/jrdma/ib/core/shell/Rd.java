package org.jrdma.ib.core.shell;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.cli.Strerror;
import org.jrdma.ib.core.spi.RdmaLinkOps;

/**
 * iproute2's {@code struct rd} and {@code rdma/utils.c}: the argument cursor, the command tables
 * (words match by prefix: {@code rdma l sh} is {@code rdma link show}), the device and link
 * iterators and the {@code FILTER-NAME FILTER-VALUE} filters of {@code rdma resource}. Commands
 * return 0 or a negative errno, as in C; the tool exits 1 on any non-zero return.
 */
final class Rd {
    static final String FILENAME = "rdma";

    /** {@code struct rd_cmd}'s function. */
    interface Cmd {
        int run(Rd rd);
    }

    /** {@code struct rd_cmd}: a word and what it runs. */
    record Command(String name, Cmd func) {
    }

    /** {@code struct filters}: a filter key a resource type accepts. */
    record FilterDef(String name, boolean isNumber) {
    }

    private record FilterEntry(String key, String value) {
    }

    final IbCore core;
    final List<RdmaLinkOps> linkOps;
    private final PrintStream out;
    private final StringBuilder stderr;
    /** rd_init()'s dump of the devices: the names commands may refer to. */
    final List<IbDevice> devMap;
    private final List<FilterEntry> filters = new ArrayList<>();
    private List<String> argv = List.of();
    private int pos;

    boolean showDetails;
    boolean showDriverDetails;
    /** The device and port the current callback works on (rd->dev_idx, rd->port_idx). */
    IbDevice dev;
    int portIdx;
    String linkName;
    String linkType;

    Rd(IbCore core, List<RdmaLinkOps> linkOps, PrintStream out, StringBuilder stderr) {
        this.core = core;
        this.linkOps = linkOps;
        this.out = out;
        this.stderr = stderr;
        this.devMap = List.copyOf(core.devices());
    }

    // ---- output: pr_out() goes to stdout, pr_err() to the collected stderr

    void prOut(String format, Object... args) {
        out.print(String.format(Locale.ROOT, format, args));
    }

    void prErr(String format, Object... args) {
        stderr.append(String.format(Locale.ROOT, format, args));
    }

    /** What rd_recv_msg()'s perror("error") prints when the kernel refused a request. */
    /**
     * iproute2's first line ("error: Invalid argument") and then the reason, which the kernel only leaves in
     * dmesg (netlink extack where it has one): "reason: 10.1.2.3 is not an address of lo".
     */
    int kernelError(VerbsException e) {
        prErr("error: %s\n", Strerror.strerror(e.errno()));
        String reason = e.getMessage();
        String suffix = " (" + e.errno() + ")";
        if (reason != null && reason.endsWith(suffix)) {
            reason = reason.substring(0, reason.length() - suffix.length());
        }
        if (reason != null && !reason.isBlank()) {
            prErr("reason: %s\n", reason);
        }
        return e.errno() == null ? -Errno.EINVAL.value() : -e.errno().value();
    }

    // ---- argument cursor

    void setArgs(List<String> args) {
        this.argv = args;
        this.pos = 0;
    }

    int argc() {
        return argv.size() - pos;
    }

    /** The current word, or null. */
    String argv() {
        return argc() == 0 ? null : argv.get(pos);
    }

    String argvAt(int i) {
        return argv.get(pos + i);
    }

    boolean noArg() {
        return argc() == 0;
    }

    void argInc() {
        if (argc() > 0) {
            pos++;
        }
    }

    /** iproute2's strcmpx(): 0 when {@code str1} is a prefix of {@code str2}. */
    static boolean strcmpx(String str1, String str2) {
        return str1.length() <= str2.length() && str2.startsWith(str1);
    }

    boolean argvMatch(String pattern) {
        return !noArg() && strcmpx(argv(), pattern);
    }

    static Command cmd(String name, Cmd func) {
        return new Command(name, func);
    }

    /**
     * rd_exec_cmd(): no word runs {@code dflt}; else the first command the word is a prefix of. An
     * unknown word is reported and, as in iproute2, is not an error (the tool exits 0).
     */
    int execCmd(String what, Cmd dflt, Command... cmds) {
        if (noArg()) {
            return dflt.run(this);
        }
        for (Command c : cmds) {
            if (argvMatch(c.name())) {
                argInc();
                return c.func().run(this);
            }
        }
        prErr("Unknown %s '%s'.\n", what, argv());
        return 0;
    }

    // ---- devices and links

    /** dev_map_lookup(): the device the current word names ({@code DEV/PORT} when allowed). */
    IbDevice devMapLookup(boolean allowPortIndex) {
        if (noArg()) {
            return null;
        }
        String name = argv();
        if (allowPortIndex) {
            int slash = name.lastIndexOf('/');
            if (slash >= 0) {
                name = name.substring(0, slash);
            }
        }
        for (IbDevice d : devMap) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        return null;
    }

    /** rd_exec_dev(): every device, or the one the current word names. */
    int execDev(Cmd cb) {
        if (noArg()) {
            for (IbDevice d : devMap) {
                dev = d;
                int ret = cb.run(this);
                if (ret != 0) {
                    return ret;
                }
            }
            return 0;
        }
        IbDevice d = devMapLookup(false);
        if (d == null) {
            prErr("Wrong device name - %s\n", argv());
            return -Errno.ENOENT.value();
        }
        argInc();
        dev = d;
        return cb.run(this);
    }

    /** rd_exec_require_dev(). */
    int execRequireDev(Cmd cb) {
        if (noArg()) {
            prErr("Please provide device name.\n");
            return -Errno.EINVAL.value();
        }
        return execDev(cb);
    }

    /**
     * rd_exec_link(): every port of every device (from port 0, "no port", unless {@code strictPort}),
     * or the {@code DEV/PORT} the current word names. In strict mode a port number is required,
     * so {@code rdma link show mlx0} is "Wrong device name", as with iproute2 6.1.
     */
    int execLink(Cmd cb, boolean strictPort) {
        if (noArg()) {
            for (IbDevice d : devMap) {
                dev = d;
                for (int port = strictPort ? 1 : 0; port <= d.physPortCnt(); port++) {
                    portIdx = port;
                    int ret = cb.run(this);
                    if (ret != 0) {
                        return ret;
                    }
                }
            }
            return 0;
        }
        IbDevice d = devMapLookup(true);
        // get_port_from_argv()
        long port = 0;
        boolean isDumpAll = !strictPort;
        boolean bad = false;
        String word = argv();
        int slash = word.indexOf('/');
        if (slash >= 0) {
            String rest = word.substring(slash + 1);
            if (rest.startsWith("-")) {
                bad = strictPort;
                isDumpAll = false;
            } else {
                if (!rest.isEmpty() && isAsciiDigit(rest.charAt(0))) {
                    isDumpAll = false;
                    port = atoi(rest);
                }
                if (port == 0 && !rest.isEmpty()) {
                    bad = true;
                }
            }
        }
        if (!bad && strictPort && port == 0) {
            bad = true;
        }
        if (d == null || port > d.physPortCnt() || (port == 0 && bad)) {
            prErr("Wrong device name\n");
            return -Errno.ENOENT.value();
        }
        argInc();
        dev = d;
        for (portIdx = (int) port; portIdx <= d.physPortCnt(); portIdx++) {
            int ret = cb.run(this);
            if (ret != 0 || !isDumpAll) {
                return ret;
            }
        }
        return 0;
    }

    /** C's atoi() on a string that starts with a digit (uint32_t wrap-around). */
    private static long atoi(String s) {
        long v = 0;
        for (int i = 0; i < s.length() && isAsciiDigit(s.charAt(i)); i++) {
            v = (v * 10 + (s.charAt(i) - '0')) & 0xffffffffL;
        }
        return v;
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }

    // ---- resource filters

    /** rd_build_filter(): the remaining words are FILTER-NAME FILTER-VALUE pairs. */
    int buildFilter(FilterDef[] valid) {
        if (valid == null || argc() == 0) {
            return 0;
        }
        if (argc() == 1) {
            prErr("No filter data was supplied to filter option %s\n", argv());
            return -Errno.EINVAL.value();
        }
        if (argc() % 2 != 0) {
            prErr("There is filter option without data\n");
            return -Errno.EINVAL.value();
        }
        for (int i = 0; i < argc(); i += 2) {
            int ret = addFilter(argvAt(i), argvAt(i + 1), valid);
            if (ret != 0) {
                return ret;
            }
        }
        return 0;
    }

    private int addFilter(String key, String value, FilterDef[] valid) {
        FilterDef def = null;
        for (FilterDef f : valid) {
            if (strcmpx(key, f.name())) {
                def = f;
                break;
            }
        }
        if (def == null) {
            prErr("Unsupported filter option: %s\n", key);
            return -Errno.EINVAL.value();
        }
        String cset = "1234567890,-";
        if (def.isNumber() && !value.chars().allMatch(ch -> cset.indexOf(ch) >= 0)) {
            prErr("%s filter accepts \"%s\" characters only\n", key, cset);
            return -Errno.EINVAL.value();
        }
        filters.add(new FilterEntry(key, value.toLowerCase(Locale.ROOT)));
        return 0;
    }

    /** rd_set_arg_to_devname(): skip to the word after {@code dev} or {@code link}. */
    int setArgToDevname() {
        while (!noArg()) {
            if (argvMatch("dev") || argvMatch("link")) {
                argInc();
                if (noArg()) {
                    prErr("No device name was supplied\n");
                    return -Errno.EINVAL.value();
                }
                return 0;
            }
            argInc();
        }
        return 0;
    }

    boolean hasFilterKey(String key) {
        for (FilterEntry fe : filters) {
            if (strcmpx(fe.key(), key)) {
                return true;
            }
        }
        return false;
    }

    /**
     * rd_is_filtered_attr(): true when the line must be skipped. A missing attribute is filtered
     * out whenever the user filters on it; values are lists and ranges ({@code 3,5-9}).
     */
    boolean isFiltered(String key, long val, boolean present) {
        if (!present) {
            return hasFilterKey(key);
        }
        val &= 0xffffffffL; // the C code compares uint32_t
        for (FilterEntry fe : filters) {
            if (!strcmpx(fe.key(), key)) {
                continue;
            }
            String p = fe.value();
            long leftVal = 0;
            long feValue = 0;
            boolean rangeCheck = false;
            int i = 0;
            while (i < p.length()) {
                if (isAsciiDigit(p.charAt(i))) {
                    // strtol() (saturating at LONG_MAX), stored in a uint32_t
                    int j = i;
                    long v = 0;
                    while (j < p.length() && isAsciiDigit(p.charAt(j))) {
                        int d = p.charAt(j) - '0';
                        v = v > (Long.MAX_VALUE - d) / 10 ? Long.MAX_VALUE : v * 10 + d;
                        j++;
                    }
                    feValue = v & 0xffffffffL;
                    i = j;
                    if (feValue == val || (rangeCheck && leftVal < val && val < feValue)) {
                        return false;
                    }
                    rangeCheck = false;
                } else {
                    if (p.charAt(i) == '-') {
                        leftVal = feValue;
                        rangeCheck = true;
                    }
                    i++;
                }
            }
            return true;
        }
        return false;
    }

    /** rd_is_string_filtered_attr(): {@code state rts,err}, case-insensitive. */
    boolean isStringFiltered(String key, String val) {
        for (FilterEntry fe : filters) {
            if (!strcmpx(fe.key(), key)) {
                continue;
            }
            for (String s : fe.value().split(",")) {
                if (!s.isEmpty() && s.length() == val.length() && s.equalsIgnoreCase(val)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }
}
