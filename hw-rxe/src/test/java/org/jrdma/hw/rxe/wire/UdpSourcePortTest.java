package org.jrdma.hw.rxe.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class UdpSourcePortTest {

    /** UD and QP1: the port set at QP creation from the QPN hash (DETH source QP = sender QPN in the captures). */
    @Test
    void capturedUdAndGsiPorts() {
        assertEquals(55410, UdpSourcePort.ofQpn(1)); // every CM MAD, both directions (rping, rstream, send_bw_cm)
        assertEquals(56671, UdpSourcePort.ofQpn(0x1e)); // ud_pingpong
    }

    /** RC/UC connected with ibv_modify_qp and flow label 0 (perftest, ibv_*_pingpong, pyverbs). */
    @Test
    void capturedQpnProductPorts() {
        int[][] qpnPort = {
            {0x1b, 49881}, // rc_pingpong
            {0x1c, 49936}, // rc_pingpong_8k
            {0x1d, 49993}, // uc_pingpong
            {0x1f, 50113}, // write_bw_64
            {0x20, 50176}, // write_bw_16k
            {0x21, 50241}, // read_bw_16k
            {0x22, 50308}, // send_bw
            {0x23, 50377}, // atomic_fadd
            {0x24, 50448}, // atomic_cas
            {0x25, 50521}, // write_lat
            {0x26, 50596}, // send_lat
            {0x2b, 51001}, // verbs_send_imm
            {0x2c, 51088}, // verbs_write_imm
            {0x2d, 51177}, // verbs_rnr_nak
            {0x2e, 51268}, // verbs_bad_rkey_nak
            {0x2f, 51361}, // verbs_read_bad_len_nak
            {0x30, 51456}, // retrans_write_16k
            {0x31, 51553}, // retrans_read_16k
        };
        for (int[] qp : qpnPort) {
            // both devices gave the two ends the same QPN in every capture
            assertEquals(qp[1], UdpSourcePort.ofConnection(0, qp[0], qp[0]), "QPN 0x" + Integer.toHexString(qp[0]));
            // and it is not the creation-time hash: modify QP replaced it
            assertTrue(qp[1] != UdpSourcePort.ofQpn(qp[0]));
        }
    }

    /** rping's connection: rdma_cm port 34613 to 7174 gives label 0x07b71, carried in the CM REQ. */
    @Test
    void capturedRdmaCmPort() {
        assertEquals(0x07b71, UdpSourcePort.rdmaCmFlowLabel(34613, 7174));
        assertEquals(64368, UdpSourcePort.ofConnection(0x07b71, 0x27, 0x27));
        assertEquals(64368, UdpSourcePort.ofFlowLabel(0x07b71));
    }

    @Test
    void formulas() {
        assertEquals((int) ((0x61c88647L * 12345) & 0xffffffffL) >>> 18, UdpSourcePort.hash32(12345, 14));
        assertEquals(49866, UdpSourcePort.ofConnection(0, 0x11, 0x2a));
        assertEquals(49866, UdpSourcePort.ofConnection(0, 0x2a, 0x11)); // symmetric
        assertEquals(0xfff2d, UdpSourcePort.calcFlowLabel(0xffffff, 0xfffffe)); // 48-bit product folded
        assertEquals(65298, UdpSourcePort.ofConnection(0, 0xffffff, 0xfffffe));
        assertEquals(64756, UdpSourcePort.ofFlowLabel(0xabcde));
        assertEquals(65472, UdpSourcePort.ofFlowLabel(0xfffff));
        assertEquals(0xc000, UdpSourcePort.ofFlowLabel(0));
        assertEquals(UdpSourcePort.ofFlowLabel(0x12345), UdpSourcePort.ofConnection(0x12345, 7, 9)); // label wins
        for (int q = 0; q < 0x20000; q += 7) {
            int p = UdpSourcePort.ofQpn(q);
            assertTrue(p >= 0xc000 && p <= 0xffff);
            int c = UdpSourcePort.ofConnection(0, q, q + 1);
            assertTrue(c >= 0xc000 && c <= 0xffff);
        }
    }
}
