package org.jrdma.ib.core.shell;

import org.jrdma.ib.core.cli.Getopt;
import static org.jrdma.ib.core.shell.Shell.addMlx;
import static org.jrdma.ib.core.shell.Shell.addRxe;
import static org.jrdma.ib.core.shell.Shell.devinfo;

import java.net.InetAddress;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.testdriver.TestDriver;
import org.junit.jupiter.api.Test;

/** Golden output of rdma-core 44's devinfo.c. */
class IbvDevinfoTest {
    final IbCore core = IbCore.newInstance();

    static final String MLX0_HEAD = """
            hca_id:\tmlx0
            \ttransport:\t\t\tInfiniBand (0)
            \tfw_ver:\t\t\t\t1.0.0
            \tnode_guid:\t\t\t0002:c903:0000:1234
            \tsys_image_guid:\t\t\t0002:c903:0000:1234
            \tvendor_id:\t\t\t0xffffff
            \tvendor_part_id:\t\t\t0
            \thw_ver:\t\t\t\t0x0
            \tphys_port_cnt:\t\t\t2
            """;

    static String mlx0Port(int port) {
        return """
                \t\tport:\t%d
                \t\t\tstate:\t\t\tPORT_ACTIVE (4)
                \t\t\tmax_mtu:\t\t4096 (5)
                \t\t\tactive_mtu:\t\t1024 (3)
                \t\t\tsm_lid:\t\t\t1
                \t\t\tport_lid:\t\t%d
                \t\t\tport_lmc:\t\t0x00
                \t\t\tlink_layer:\t\tInfiniBand

                """.formatted(port, port);
    }

    static final String RXE0 = """
            hca_id:\trxe0
            \ttransport:\t\t\tInfiniBand (0)
            \tfw_ver:\t\t\t\t1.0.0
            \tnode_guid:\t\t\t5054:00ff:fec0:0002
            \tsys_image_guid:\t\t\t5054:00ff:fec0:0002
            \tvendor_id:\t\t\t0xffffff
            \tvendor_part_id:\t\t\t0
            \thw_ver:\t\t\t\t0x0
            \tphys_port_cnt:\t\t\t1
            \t\tport:\t1
            \t\t\tstate:\t\t\tPORT_ACTIVE (4)
            \t\t\tmax_mtu:\t\t4096 (5)
            \t\t\tactive_mtu:\t\t1024 (3)
            \t\t\tsm_lid:\t\t\t0
            \t\t\tport_lid:\t\t0
            \t\t\tport_lmc:\t\t0x00
            \t\t\tlink_layer:\t\tEthernet

            """;

    static final String USAGE = """
            Usage: ibv_devinfo             print the ca attributes

            Options:
              -d, --ib-dev=<dev>     use IB device <dev> (default first device found)
              -i, --ib-port=<port>   use port <port> of IB device (default all ports)
              -l, --list             print only the IB devices names
              -v, --verbose          print all the attributes of the IB device(s)
            """;

    @Test
    void everyDeviceAndPortWithABlankLineAfterEachPort() {
        addMlx(core);
        addRxe(core);
        devinfo(core).is(0, MLX0_HEAD + mlx0Port(1) + mlx0Port(2) + RXE0, "");
    }

    @Test
    void oneDeviceByName() {
        addMlx(core);
        addRxe(core);
        devinfo(core, "-d", "rxe0").is(0, RXE0, "");
        devinfo(core, "--ib-dev=rxe0").is(0, RXE0, "");
        devinfo(core, "-drxe0").is(0, RXE0, "");
        devinfo(core, "--ib-d", "rxe0").is(0, RXE0, "");
    }

    @Test
    void onePort() {
        addMlx(core);
        devinfo(core, "-d", "mlx0", "-i", "2").is(0, MLX0_HEAD + mlx0Port(2), "");
        devinfo(core, "--ib-port", "0x1").is(0, MLX0_HEAD + mlx0Port(1), "");
        // devinfo.c hands the port on as a uint8_t
        devinfo(core, "-i", "257").is(0, MLX0_HEAD + mlx0Port(1), "");
        devinfo(core, "-i", "256").is(0, MLX0_HEAD + mlx0Port(1) + mlx0Port(2), "");
    }

    @Test
    void aPortBeyondADeviceFailsThatDeviceWithStatus4() {
        addMlx(core);
        addRxe(core);
        devinfo(core, "-d", "mlx0", "-i", "3").is(4, "", "Invalid port requested for device\n");
        devinfo(core, "-i", "2").is(4, MLX0_HEAD + mlx0Port(2), "Invalid port requested for device\n");
    }

    @Test
    void aPortBelowOneIsUsageOnStdoutAndStatus1() {
        addMlx(core);
        devinfo(core, "-i", "0").is(1, USAGE, "");
        devinfo(core, "-i", "port1").is(1, USAGE, "");
        devinfo(core, "-i", "-1").is(1, USAGE, "");
    }

    @Test
    void unknownDevice() {
        addMlx(core);
        devinfo(core, "-d", "foo").is(255, "", "IB device 'foo' wasn't found\n");
    }

    @Test
    void noDevices() {
        devinfo(core).is(255, "", "No IB devices found\n");
        devinfo(core, "-v").is(255, "", "No IB devices found\n");
    }

    @Test
    void badOptionsAreGetoptMessagesThenUsageAndStatus255() {
        addMlx(core);
        devinfo(core, "-x").is(255, USAGE, "ibv_devinfo: invalid option -- 'x'\n");
        devinfo(core, "-d").is(255, USAGE, "ibv_devinfo: option requires an argument -- 'd'\n");
        devinfo(core, "--ib-port").is(255, USAGE, "ibv_devinfo: option '--ib-port' requires an argument\n");
        devinfo(core, "--ib").is(255, USAGE,
                "ibv_devinfo: option '--ib' is ambiguous; possibilities: '--ib-dev' '--ib-port'\n");
        devinfo(core, "--verbose=yes").is(255, USAGE,
                "ibv_devinfo: option '--verbose' doesn't allow an argument\n");
        devinfo(core, "--foo=1").is(255, USAGE, "ibv_devinfo: unrecognized option '--foo=1'\n");
    }

    @Test
    void listIsActedOnWhenParsed() {
        addMlx(core);
        addRxe(core);
        String two = "2 HCAs found:\n\tmlx0\n\trxe0\n\n";
        devinfo(core, "-l").is(0, two, "");
        devinfo(core, "-v", "--list", "-x").is(0, two, "");
        devinfo(core, "-x", "-l").is(255, USAGE, "ibv_devinfo: invalid option -- 'x'\n");
    }

    @Test
    void listWithOneAndNoDevice() {
        devinfo(core, "-l").is(0, "0 HCAs found:\n\n", "");
        addRxe(core);
        devinfo(core, "-l").is(0, "1 HCA found:\n\trxe0\n\n", "");
    }

    @Test
    void operandsAreIgnored() {
        addRxe(core);
        devinfo(core, "mlx0", "--").is(0, RXE0, "");
    }

    static final String RXE0_VERBOSE = """
            hca_id:\trxe0
            \ttransport:\t\t\tInfiniBand (0)
            \tfw_ver:\t\t\t\t1.0.0
            \tnode_guid:\t\t\t5054:00ff:fec0:0002
            \tsys_image_guid:\t\t\t5054:00ff:fec0:0002
            \tvendor_id:\t\t\t0xffffff
            \tvendor_part_id:\t\t\t0
            \thw_ver:\t\t\t\t0x0
            \tphys_port_cnt:\t\t\t1
            \tmax_mr_size:\t\t\t0x100000000
            \tpage_size_cap:\t\t\t0xfffff000
            \tmax_qp:\t\t\t\t64
            \tmax_qp_wr:\t\t\t1024
            \tdevice_cap_flags:\t\t0x00000000
            \tmax_sge:\t\t\t4
            \tmax_sge_rd:\t\t\t4
            \tmax_cq:\t\t\t\t64
            \tmax_cqe:\t\t\t4096
            \tmax_mr:\t\t\t\t64
            \tmax_pd:\t\t\t\t16
            \tmax_qp_rd_atom:\t\t\t16
            \tmax_ee_rd_atom:\t\t\t0
            \tmax_res_rd_atom:\t\t1024
            \tmax_qp_init_rd_atom:\t\t16
            \tmax_ee_init_rd_atom:\t\t0
            \tatomic_cap:\t\t\tATOMIC_HCA (1)
            \tmax_ee:\t\t\t\t0
            \tmax_rdd:\t\t\t0
            \tmax_mw:\t\t\t\t16
            \tmax_raw_ipv6_qp:\t\t0
            \tmax_raw_ethy_qp:\t\t0
            \tmax_mcast_grp:\t\t\t8
            \tmax_mcast_qp_attach:\t\t8
            \tmax_total_mcast_qp_attach:\t64
            \tmax_ah:\t\t\t\t16
            \tmax_fmr:\t\t\t0
            \tmax_srq:\t\t\t8
            \tmax_srq_wr:\t\t\t256
            \tmax_srq_sge:\t\t\t4
            \tmax_pkeys:\t\t\t1
            \tlocal_ca_ack_delay:\t\t0
            \tgeneral_odp_caps:
            \trc_odp_caps:
            \t\t\t\t\tNO SUPPORT
            \tuc_odp_caps:
            \t\t\t\t\tNO SUPPORT
            \tud_odp_caps:
            \t\t\t\t\tNO SUPPORT
            \txrc_odp_caps:
            \t\t\t\t\tNO SUPPORT
            \tcompletion_timestamp_mask not supported
            \tcore clock not supported
            \tdevice_cap_flags_ex:\t\t0x0
            \ttso_caps:
            \t\tmax_tso:\t\t\t0
            \trss_caps:
            \t\tmax_rwq_indirection_tables:\t\t\t0
            \t\tmax_rwq_indirection_table_size:\t\t\t0
            \t\trx_hash_function:\t\t\t\t0x0
            \t\trx_hash_fields_mask:\t\t\t\t0x0
            \tmax_wq_type_rq:\t\t\t0
            \tpacket_pacing_caps:
            \t\tqp_rate_limit_min:\t0kbps
            \t\tqp_rate_limit_max:\t0kbps
            \ttag matching not supported
            \tnum_comp_vectors:\t\t1
            \t\tport:\t1
            \t\t\tstate:\t\t\tPORT_ACTIVE (4)
            \t\t\tmax_mtu:\t\t4096 (5)
            \t\t\tactive_mtu:\t\t1024 (3)
            \t\t\tsm_lid:\t\t\t0
            \t\t\tport_lid:\t\t0
            \t\t\tport_lmc:\t\t0x00
            \t\t\tlink_layer:\t\tEthernet
            \t\t\tmax_msg_sz:\t\t0x80000000
            \t\t\tport_cap_flags:\t\t0x00000000
            \t\t\tport_cap_flags2:\t0x0000
            \t\t\tmax_vl_num:\t\t1 (1)
            \t\t\tbad_pkey_cntr:\t\t0x0
            \t\t\tqkey_viol_cntr:\t\t0x0
            \t\t\tsm_sl:\t\t\t0
            \t\t\tpkey_tbl_len:\t\t1
            \t\t\tgid_tbl_len:\t\t4
            \t\t\tsubnet_timeout:\t\t0
            \t\t\tinit_type_reply:\t0
            \t\t\tactive_width:\t\t1X (1)
            \t\t\tactive_speed:\t\t2.5 Gbps (1)
            \t\t\tphys_state:\t\tLINK_UP (5)
            \t\t\tGID[  0]:\t\tfe80::5054:ff:fec0:3, RoCE v2

            """;

    @Test
    void verboseOnARoceDevice() {
        addRxe(core);
        devinfo(core, "-v").is(0, RXE0_VERBOSE, "");
        devinfo(core, "--verb").is(0, RXE0_VERBOSE, "");
    }

    @Test
    void verboseIbPortsPrintFullGids() {
        addMlx(core);
        String out = devinfo(core, "-v", "-i", "2").out();
        String port2 = """
                \t\tport:\t2
                \t\t\tstate:\t\t\tPORT_ACTIVE (4)
                \t\t\tmax_mtu:\t\t4096 (5)
                \t\t\tactive_mtu:\t\t1024 (3)
                \t\t\tsm_lid:\t\t\t1
                \t\t\tport_lid:\t\t2
                \t\t\tport_lmc:\t\t0x00
                \t\t\tlink_layer:\t\tInfiniBand
                \t\t\tmax_msg_sz:\t\t0x80000000
                \t\t\tport_cap_flags:\t\t0x00000000
                \t\t\tport_cap_flags2:\t0x0000
                \t\t\tmax_vl_num:\t\t1 (1)
                \t\t\tbad_pkey_cntr:\t\t0x0
                \t\t\tqkey_viol_cntr:\t\t0x0
                \t\t\tsm_sl:\t\t\t0
                \t\t\tpkey_tbl_len:\t\t1
                \t\t\tgid_tbl_len:\t\t4
                \t\t\tsubnet_timeout:\t\t0
                \t\t\tinit_type_reply:\t0
                \t\t\tactive_width:\t\t1X (1)
                \t\t\tactive_speed:\t\t2.5 Gbps (1)
                \t\t\tphys_state:\t\tLINK_UP (5)
                \t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0002:c903:0000:1236

                """;
        org.junit.jupiter.api.Assertions.assertTrue(out.startsWith("hca_id:\tmlx0\n"), out);
        org.junit.jupiter.api.Assertions.assertTrue(out.endsWith("\tnum_comp_vectors:\t\t1\n" + port2), out);
    }

    /** The GID lines rdma-core 44 printed for rxe_a (devices.txt beside the Linux rxe captures, copied here). */
    @Test
    void roceGidsAsCapturedFromARealRxe() {
        core.registrar().register(new TestDriver(1, LinkLayer.ETHERNET, 0x0200000000000aL) {
            @Override
            public Gid queryGid(int portNum, int index) {
                try {
                    return switch (index) {
                        case 0 -> Gid.parse("fe80::ff:fe00:a");
                        case 1 -> Gid.of(InetAddress.getByName("192.0.2.10"));
                        case 2 -> Gid.of(0xfe80_0000_0000_0000L, 0); // zero interface id: not shown
                        default -> Gid.ZERO;
                    };
                } catch (java.net.UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
            }
        }.registration("rxe_a"));
        String out = devinfo(core, "-v").out();
        org.junit.jupiter.api.Assertions.assertTrue(out.endsWith("""
                \t\t\tphys_state:\t\tLINK_UP (5)
                \t\t\tGID[  0]:\t\tfe80::ff:fe00:a, RoCE v2
                \t\t\tGID[  1]:\t\t::ffff:192.0.2.10, RoCE v2

                """), out);
        org.junit.jupiter.api.Assertions.assertTrue(out.contains("\t\t\tactive_mtu:\t\t1024 (3)\n"), out);
    }

    @Test
    void capabilityFlagsAreDecodedOnePerLine() {
        long flags = 1L | 1L << 11 | 1L << 16 | 1L << 21 | 1L << 34 | 1L << 40;
        core.registrar().register(new Shell.FlagsDriver(LinkLayer.INFINIBAND, 1L, flags, 0).registration("mlx0"));
        String out = devinfo(core, "-v").out();
        org.junit.jupiter.api.Assertions.assertTrue(out.contains("""
                \tmax_qp_wr:\t\t\t1024
                \tdevice_cap_flags:\t\t0x00210801
                \t\t\t\t\tRESIZE_MAX_WR
                \t\t\t\t\tSYS_IMAGE_GUID
                \t\t\t\t\tMEM_MGT_EXTENSIONS
                \t\t\t\t\tUnknown flags: 0x10000
                \tmax_sge:\t\t\t4
                """), out);
        org.junit.jupiter.api.Assertions.assertTrue(out.contains("""
                \tcore clock not supported
                \tdevice_cap_flags_ex:\t\t0x10400210801
                \t\t\t\t\tRAW_SCATTER_FCS
                \t\t\t\t\tUnknown flags: 0x10000000000
                \ttso_caps:
                """), out);
    }
}
