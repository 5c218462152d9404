package org.jrdma.ulp.iser.shell;

import java.math.BigDecimal;
import java.util.concurrent.TimeUnit;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.ToolMain;
import org.jrdma.ib.core.cli.ToolRuns;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * {@code sleep NUMBER[SUFFIX]...} as coreutils' (Felix Gogo's shell has none): the sum of the intervals, s
 * (default), m, h or d, fractions allowed, so a batch line can keep a target serving ({@code ...; sleep 600}).
 * Ctrl-C or the bundle stopping ends it with status 130.
 */
@Component(service = SleepCommand.class, property = {
    "osgi.command.scope=iser",
    "osgi.command.function=sleep"})
public class SleepCommand {
    private final ToolRuns runs = new ToolRuns();

    public void sleep(String... args) {
        String[] words = ToolRuns.words(args);
        runs.run(() -> ToolMain.execute(System.out, System.err, stderr -> sleep(words, stderr)));
    }

    @Deactivate
    void deactivate() {
        runs.interruptAll();
    }

    static int sleep(String[] words, StringBuilder stderr) {
        if (words.length == 0) {
            stderr.append("sleep: missing operand\nTry 'sleep --help' for more information.\n");
            return 1;
        }
        long nanos = 0;
        for (String w : words) {
            long n = nanos(w);
            if (n < 0) {
                stderr.append("sleep: invalid time interval '").append(w)
                        .append("'\nTry 'sleep --help' for more information.\n");
                return 1;
            }
            nanos = n > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : nanos + n;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            return Exit.interrupted().status();
        }
        return 0;
    }

    /** One interval in nanoseconds, or -1 when it is not NUMBER[smhd]. */
    static long nanos(String word) {
        if (word.isEmpty()) {
            return -1;
        }
        char last = word.charAt(word.length() - 1);
        long unit = switch (last) {
            case 'm' -> 60L;
            case 'h' -> 3600L;
            case 'd' -> 86400L;
            default -> 1L;
        };
        String number = Character.isLetter(last) ? word.substring(0, word.length() - 1) : word;
        if (Character.isLetter(last) && "smhd".indexOf(last) < 0) {
            return -1;
        }
        try {
            BigDecimal ns = new BigDecimal(number).multiply(BigDecimal.valueOf(unit * 1_000_000_000L));
            if (ns.signum() < 0) {
                return -1;
            }
            return ns.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0 ? Long.MAX_VALUE : ns.longValue();
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
