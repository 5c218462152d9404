package org.jrdma.ib.core.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.testsupport.FuzzArgs;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: argument vectors for the Gogo commands of ib-core ({@code rdma} with its link, dev, res, stat
 * objects, {@code ibv_devinfo}, {@code ibv_devices}), against an mlx0 (2 IB ports) and an rxe0 (RoCE) and an
 * "rxe" link type that creates devices on request ({@code rdma link add}), deleted again after each input.
 * Input: a control byte (the tool), then the arguments separated by NUL bytes (at most 16). Per input: the tool
 * returns an exit status (0..255; only {@code CommandFailure}, the tools' own error type, may come out of
 * {@code execute}, and {@code run} turns it into the status), a non-zero status comes with something said on
 * stderr or stdout (the usage, the reason), and the devices are those of before.
 */
class ShellArgsFuzzTest {
    private static final int MAX_ARGS = 16;
    private static IbCore core;
    private static RdmaLinkTest.FakeRxe rxe;
    private static int devices;

    @FuzzTest(maxDuration = "60s")
    void args(byte[] data) {
        if (core == null) {
            core = IbCore.newInstance();
            Shell.addMlx(core);
            Shell.addRxe(core);
            rxe = new RdmaLinkTest.FakeRxe(core);
            devices = core.devices().size();
        }
        int c = data.length > 0 ? data[0] & 0xff : 0;
        String[] args = FuzzArgs.split(data, MAX_ARGS);
        ShellTool tool = switch (c % 3) {
            case 0 -> new Rdma(List.of(rxe));
            case 1 -> new IbvDevinfo();
            default -> new IbvDevices();
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = tool.run(core, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
        assertTrue(status >= 0 && status <= 255, () -> "exit status " + status);
        if (status != 0) {
            assertFalse(out.size() == 0 && err.size() == 0, () -> "status " + status + " and not a word: "
                    + String.join(" ", args));
        }
        for (RegisteredDevice h : new ArrayList<>(rxe.created.values())) {
            h.unregister();
        }
        rxe.created.clear();
        rxe.calls.clear(); // what RdmaLinkTest asserts on; here it would only grow
        assertEquals(devices, core.devices().size(), "devices after the run");
    }

    @AfterAll
    static void stop() {
        core = null;
    }
}
