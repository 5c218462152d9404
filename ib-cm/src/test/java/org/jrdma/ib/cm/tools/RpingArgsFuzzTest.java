package org.jrdma.ib.cm.tools;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.testsupport.FuzzArgs;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: argument vectors for rping's option parsing (getopt "a:I:Pp:C:S:t:scvVdq", the checks of -S and -C,
 * get_addr), NUL-separated after a control byte that is ignored. A command line that parses goes on to
 * {@code rdma_create_id}, which this CM refuses (ENODEV): so every input ends in the parser's status (EINVAL
 * with the usage, EAI_NONAME, ...) or in rping's {@code rdma_create_id: No such device} and -1; never an
 * exception, and a non-zero status always comes with words on stdout or stderr. Host names are not looked up
 * ({@link #noLookups}).
 */
class RpingArgsFuzzTest {
    /** A CM without devices. */
    static final RdmaCm NO_DEVICE = (handler, ps) -> {
        throw new VerbsException(Errno.ENODEV, "no RDMA device");
    };

    @FuzzTest(maxDuration = "60s")
    void args(byte[] data) {
        String[] args = FuzzArgs.split(data, 16);
        noLookups(args);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Rping.run(NO_DEVICE, new PrintStream(out, true, StandardCharsets.ISO_8859_1),
                new PrintStream(err, true, StandardCharsets.ISO_8859_1), args);
        if (status != 0) {
            assertFalse(out.size() == 0 && err.size() == 0, () -> "status " + status + " and not a word: "
                    + String.join(" ", args));
        }
    }

    /**
     * The values getopt would give -a and -I ({@code "a:I:Pp:C:S:t:scvVdq"}, attached or the next argument) that
     * are not IP literals become ones that need no lookup: "" (getaddrinfo fails on it as on a bad name) for a
     * separate value, "0" for an attached one.
     */
    static void noLookups(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                return;
            }
            if (a.length() < 2 || a.charAt(0) != '-') {
                continue; // an operand: getopt permutes past it
            }
            for (int j = 1; j < a.length(); j++) {
                char o = a.charAt(j);
                if ("aIpCSt".indexOf(o) < 0) {
                    continue;
                }
                if (j + 1 < a.length()) {
                    if ((o == 'a' || o == 'I') && !literal(a.substring(j + 1))) {
                        args[i] = a.substring(0, j + 1) + "0";
                    }
                } else if (i + 1 < args.length) {
                    i++;
                    if ((o == 'a' || o == 'I') && !literal(args[i])) {
                        args[i] = "";
                    }
                }
                break;
            }
        }
    }

    /** What InetAddress parses without DNS: a ':' makes it an IPv6 literal (or an error); else digits and dots. */
    private static boolean literal(String s) {
        return s.indexOf(':') >= 0 || s.chars().allMatch(ch -> ch >= '0' && ch <= '9' || ch == '.');
    }
}
