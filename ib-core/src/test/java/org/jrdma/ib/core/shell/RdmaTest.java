package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Shell.addMlx;
import static org.jrdma.ib.core.shell.Shell.rdma;

import org.jrdma.ib.core.IbCore;
import org.junit.jupiter.api.Test;

/** iproute2 6.1 rdma.c: options, objects, help. */
class RdmaTest {
    final IbCore core = IbCore.newInstance();

    static final String HELP = """
            Usage: rdma [ OPTIONS ] OBJECT { COMMAND | help }
                   rdma [ -f[orce] ] -b[atch] filename
            where  OBJECT := { dev | link | resource | system | statistic | help }
                   OPTIONS := { -V[ersion] | -d[etails] | -j[son] | -p[retty] -r[aw]}
            """;

    @Test
    void helpWithoutObjectAndOnRequest() {
        rdma(core).is(0, HELP, "");
        rdma(core, "help").is(0, HELP, "");
        rdma(core, "h").is(0, HELP, "");
        rdma(core, "-h").is(0, HELP, "");
        rdma(core, "--help", "dev").is(0, HELP, "");
    }

    @Test
    void version() {
        rdma(core, "-V").is(0, "rdma utility, iproute2-6.1.0\n", "");
        rdma(core, "--vers").is(0, "rdma utility, iproute2-6.1.0\n", "");
    }

    @Test
    void anUnknownObjectIsReportedButIsNotAnError() {
        addMlx(core);
        rdma(core, "foo").is(0, "", "Unknown object 'foo'.\n");
        rdma(core, "devx").is(0, "", "Unknown object 'devx'.\n");
    }

    @Test
    void anUnknownOptionIsAnErrorWithHelp() {
        rdma(core, "-x", "dev").is(1, HELP, "Unknown option.\n");
        rdma(core, "dev", "--bogus").is(1, HELP, "Unknown option.\n");
        rdma(core, "-b").is(1, "", "-b option requires an argument\n");
    }

    @Test
    void whatJrdmaDoesNotImplementFails() {
        rdma(core, "-j", "dev").is(1, "", "rdma: JSON output (-j) is not supported by jrdma\n");
        rdma(core, "-r", "res", "show", "qp").is(1, "", "rdma: raw resource data (-r) is not supported by jrdma\n");
        rdma(core, "-b", "cmds.txt").is(1, "", "rdma: batch mode (-b) is not supported by jrdma\n");
        rdma(core, "system").is(1, "", "rdma: the system object is not supported by jrdma\n");
    }

    @Test
    void statisticShowsEachPortsHardwareCountersOnOneLine() {
        org.jrdma.ib.core.testdriver.TestDriver counting = new org.jrdma.ib.core.testdriver.TestDriver(
                2, org.jrdma.ib.core.LinkLayer.ETHERNET, 0x5054_00ff_fe00_0001L) {
            @Override
            public java.util.Map<String, Long> queryHwStats(int port) {
                java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
                m.put("sent_pkts", 10L * port);
                m.put("rcvd_pkts", 20L * port);
                m.put("duplicate_request", 0L);
                return m;
            }
        };
        core.registrar().register(counting.registration("rxe%d"));
        addMlx(core); // no counters: prints nothing
        String both = "link rxe0/1 sent_pkts 10 rcvd_pkts 20 duplicate_request 0 \n"
                + "link rxe0/2 sent_pkts 20 rcvd_pkts 40 duplicate_request 0 \n";
        rdma(core, "statistic").is(0, both, "");
        rdma(core, "stat", "show").is(0, both, "");
        rdma(core, "stat", "show", "link").is(0, both, "");
        rdma(core, "stat", "show", "link", "rxe0/2").is(0, "link rxe0/2 sent_pkts 20 rcvd_pkts 40 duplicate_request 0 \n", "");
        rdma(core, "stat", "show", "link", "mlx0/1").is(0, "", "");
    }

    @Test
    void prettyAndForceAreAcceptedAndChangeNothing() {
        addMlx(core);
        rdma(core, "-p", "-f", "dev").is(0, "0: mlx0: node_type ca fw 1.0.0 node_guid 0002:c903:0000:1234 "
                + "sys_image_guid 0002:c903:0000:1234 \n", "");
    }
}
