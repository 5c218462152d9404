package org.jrdma.ib.core.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.cli.ToolClient;
import org.jrdma.ib.core.spi.RdmaLinkOps;
import org.jrdma.ib.core.testdriver.TestDriver;

/** Runs a tool as a process would and keeps its stdout, stderr and exit status. */
final class Shell {
    static final long MLX_GUID = 0x0002c90300001234L;
    static final long RXE_GUID = 0x505400fffec00002L;

    record Result(int status, String out, String err) {
        /** Asserts the whole result at once, so a failure shows every difference. */
        void is(int status, String out, String err) {
            assertEquals(new Result(status, out, err), this);
        }
    }

    static Result run(ShellTool tool, IbCore core, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = tool.run(core, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Result rdma(IbCore core, String... args) {
        return run(new Rdma(List.of()), core, args);
    }

    static Result rdma(IbCore core, List<RdmaLinkOps> ops, String... args) {
        return run(new Rdma(ops), core, args);
    }

    static Result devinfo(IbCore core, String... args) {
        return run(new IbvDevinfo(), core, args);
    }

    /** mlx0: 2 InfiniBand ports, node GUID 0002:c903:0000:1234. */
    static IbDevice addMlx(IbCore core) {
        return core.registrar().register(new TestDriver(2, LinkLayer.INFINIBAND, MLX_GUID).registration("mlx%d"))
                .device();
    }

    /** rxe0: 1 Ethernet (RoCE) port, node GUID 5054:00ff:fec0:0002. */
    static IbDevice addRxe(IbCore core) {
        return core.registrar().register(new TestDriver(1, LinkLayer.ETHERNET, RXE_GUID).registration("rxe%d"))
                .device();
    }

    /** A TestDriver with capability bits set, to see them decoded. */
    static final class FlagsDriver extends TestDriver {
        private final long deviceCapFlags;
        private final int portCapFlags;

        FlagsDriver(LinkLayer ll, long guid, long deviceCapFlags, int portCapFlags) {
            super(1, ll, guid);
            this.deviceCapFlags = deviceCapFlags;
            this.portCapFlags = portCapFlags;
        }

        @Override
        public DeviceAttr queryDevice() {
            return super.queryDevice().deviceCapFlags(deviceCapFlags);
        }

        @Override
        public PortAttr queryPort(int portNum) {
            return super.queryPort(portNum).portCapFlags(portCapFlags);
        }
    }

    static IbClient client(String name) {
        return ToolClient.named(name);
    }

    private Shell() {
    }
}
