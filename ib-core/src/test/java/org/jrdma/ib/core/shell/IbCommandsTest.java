package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Shell.addMlx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeSet;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.spi.RdmaLinkOps;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Gogo component: output on System.out, and a failure's stderr text only in the
 * CommandFailure, so that the launcher prints it exactly once.
 */
class IbCommandsTest {
    final IbCore core = IbCore.newInstance();
    final IbCommands commands = new IbCommands();
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream savedOut;
    PrintStream savedErr;

    @BeforeEach
    void capture() {
        commands.core = core;
        savedOut = System.out;
        savedErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(savedOut);
        System.setErr(savedErr);
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void successPrintsOnSystemOut() {
        addMlx(core);
        commands.ibv_devices();
        commands.rdma("dev");
        assertEquals("    device          \t   node GUID\n    ------          \t----------------\n"
                + "    mlx0            \t0002c90300001234\n" + RdmaDevTest.MLX0, out());
        assertEquals("", err());
    }

    @Test
    void aFailureCarriesTheStderrTextAndStatusAndPrintsNoStderr() {
        addMlx(core);
        CommandFailure f = assertThrows(CommandFailure.class, () -> commands.ibv_devinfo("-d", "foo"));
        assertEquals(255, f.exitStatus());
        assertEquals("IB device 'foo' wasn't found", f.getMessage());
        f = assertThrows(CommandFailure.class, () -> commands.rdma("dev", "show", "foo"));
        assertEquals(1, f.exitStatus());
        assertEquals("Wrong device name - foo", f.getMessage());
        assertEquals("", out());
        assertEquals("", err());
    }

    @Test
    void stdoutOfAFailedCommandIsStillPrinted() {
        CommandFailure f = assertThrows(CommandFailure.class, () -> commands.ibv_devinfo("-x"));
        assertEquals(255, f.exitStatus());
        assertEquals("ibv_devinfo: invalid option -- 'x'", f.getMessage());
        assertEquals(IbvDevinfoTest.USAGE, out());
        assertEquals("", err());
    }

    /** devinfo -i 0 prints usage and exits 1 with nothing on stderr: an empty message. */
    @Test
    void aFailureWithoutStderrTextHasAnEmptyMessage() {
        CommandFailure f = assertThrows(CommandFailure.class, () -> commands.ibv_devinfo("-i", "0"));
        assertEquals(1, f.exitStatus());
        assertEquals("", f.getMessage());
    }

    /** Gogo turns the word null into a null argument. */
    @Test
    void theWordNullStaysAWord() {
        CommandFailure f = assertThrows(CommandFailure.class, () -> commands.rdma("dev", "show", null));
        assertEquals("Wrong device name - null", f.getMessage());
    }

    /** iproute2 reports an unknown word on stderr and still exits 0. */
    @Test
    void stderrTextOfASuccessGoesToSystemErr() {
        commands.rdma("foo");
        assertEquals("", out());
        assertEquals("Unknown object 'foo'.\n", err());
    }

    @Test
    void rdmaLinkAddUsesTheBoundLinkOps() {
        StringBuilder calls = new StringBuilder();
        commands.linkOps.add(new RdmaLinkOps() {
            @Override
            public String type() {
                return "rxe";
            }

            @Override
            public IbDevice newLink(String name, String netdev, Map<String, String> options) {
                calls.append(name).append(' ').append(netdev);
                return null;
            }

            @Override
            public boolean delLink(IbDevice device) {
                return false;
            }
        });
        commands.rdma("link", "add", "rxe0", "type", "rxe", "netdev", "eth0");
        assertEquals("rxe0 eth0", calls.toString());
        commands.linkOps.clear();
        assertThrows(CommandFailure.class, () -> commands.rdma("link", "add", "rxe0", "type", "rxe", "netdev", "eth0"));
    }

    /**
     * Gogo finds a command by method name (also get/set/is + name) among the public methods: the
     * three commands must be the only ones, each taking the words as String...
     */
    @Test
    void theGogoFunctionsAreTheOnlyPublicMethods() {
        TreeSet<String> names = new TreeSet<>();
        for (Method m : IbCommands.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers())) {
                names.add(m.getName());
                assertEquals("[class [Ljava.lang.String;]", Arrays.toString(m.getParameterTypes()), m.getName());
                assertEquals(void.class, m.getReturnType(), m.getName());
            }
        }
        assertEquals("[ibv_devices, ibv_devinfo, rdma]", names.toString());
    }
}
