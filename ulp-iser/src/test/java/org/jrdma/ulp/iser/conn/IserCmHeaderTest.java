package org.jrdma.ulp.iser.conn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.jrdma.ulp.iser.capture.Pcap;
import org.junit.jupiter.api.Test;

/**
 * {@code struct iser_cm_hdr} against what Linux sent in {@code iser_session.pcap}: ib_iser's CM REQ (frame 1) and
 * isert's CM REP (frame 2), MADs on QP1 (UDP, BTH 12 + DETH 8, then the 256-byte MAD).
 */
class IserCmHeaderTest {
    static final int MAD = 8 + 12 + 8;
    /** REQ private data at MAD byte 164 (92 bytes), the RDMA CM header first (36 bytes); REP's at 60 (196 bytes). */
    static final int REQ_ISER_HDR = MAD + 164 + 36;
    static final int REP_ISER_HDR = MAD + 60;

    static byte[] udp(int frame) throws Exception {
        List<Pcap.IpPacket> all = Pcap.read(Path.of("src/test/resources/vectors/iser/iser_session.pcap"));
        return all.get(frame - 1).payload();
    }

    @Test
    void linuxInitiatorReqAndIsertRepPrivateData() throws Exception {
        byte[] req = udp(1);
        assertEquals(0x10, req[MAD + 16] << 8 | req[MAD + 17], "frame 1 is the CM REQ");
        IserCmHeader fromReq = IserCmHeader.decode(Arrays.copyOfRange(req, REQ_ISER_HDR, REQ_ISER_HDR + 56));
        assertEquals(0x80, fromReq.flags());
        assertTrue(fromReq.zbvaNotSupported());
        assertFalse(fromReq.sendWithInvalidateNotSupported());
        assertArrayEquals(Arrays.copyOfRange(req, REQ_ISER_HDR, REQ_ISER_HDR + 4), IserCmHeader.of(true).encode());

        byte[] rep = udp(2);
        assertEquals(0x13, rep[MAD + 16] << 8 | rep[MAD + 17], "frame 2 is the CM REP");
        // isert answers ZBVA not used and (remote invalidation used) no SEND_W_INV_NOT_USED
        assertArrayEquals(Arrays.copyOfRange(rep, REP_ISER_HDR, REP_ISER_HDR + 4), IserCmHeader.of(true).encode());
        assertEquals(new IserCmHeader(0x80), IserCmHeader.decode(Arrays.copyOfRange(rep, REP_ISER_HDR, REP_ISER_HDR + 196)));
    }

    @Test
    void flagsAndAbsentHeader() {
        assertArrayEquals(new byte[] {(byte) 0xc0, 0, 0, 0}, IserCmHeader.of(false).encode());
        assertTrue(IserCmHeader.of(false).sendWithInvalidateNotSupported());
        assertEquals(0, IserCmHeader.decode(new byte[0]).flags());
        assertFalse(IserCmHeader.present(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new IserCmHeader(0x100));
        assertEquals("iser_cm_hdr{flags=0xc0 ZBVA_NOT_SUP SEND_W_INV_NOT_SUP}", IserCmHeader.of(false).toString());
    }
}
