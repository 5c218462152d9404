package org.jrdma.ulp.iser.pdu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.ulp.iser.capture.RoceSends;
import org.jrdma.ulp.iser.capture.TsharkTsv;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every iSCSI PDU Linux sent over iSER in the captures (open-iscsi + ib_iser <-> LIO isert over rxe): the SEND
 * payload decodes to what tshark decoded ({@code .tsv}: iSER flags, STags and VAs, iSCSI opcode, ITT,
 * DataSegmentLength, EDTL, the SCSI opcode of a command) and encodes back to the same bytes.
 */
class IserGoldenCaptureTest {

    /** The PDU counts are the iSCSI opcode histograms of the vectors' summary.txt. */
    @ParameterizedTest
    @CsvSource({"iser_session, 82", "iser_discovery, 4", "iser_nopout, 82"})
    void everyPduDecodesAsTsharkAndEncodesBack(String capture, int pdus) throws Exception {
        Map<Integer, RoceSends.Send> sends = sends(capture);
        assertEquals(pdus, sends.size());
        List<TsharkTsv.Row> rows = tsv(capture).rowsWith("iscsi.opcode");
        assertEquals(rows.stream().map(TsharkTsv.Row::frame).toList(), List.copyOf(sends.keySet()),
                "the SENDs are the frames tshark decoded an iSCSI PDU in");
        for (TsharkTsv.Row row : rows) {
            RoceSends.Send send = sends.get(row.frame());
            IserPdu pdu = decode(send.payload());
            String where = capture + " frame " + row.frame();
            checkIser(row, pdu.iser(), where);
            checkIscsi(row, pdu.pdu(), where);
            assertArrayEquals(send.payload(), encode(pdu), where + ": re-encoded");
        }
    }

    private static void checkIser(TsharkTsv.Row row, IserHeader iser, String where) {
        assertEquals(row.hex("iser.flags"), iser.flags(), where + ": iSER flags");
        assertEquals(row.hex("iser.write_stag"), Integer.toUnsignedLong(iser.writeStag()), where + ": write STag");
        assertEquals(row.hex("iser.write_base_offset"), iser.writeVa(), where + ": write VA");
        assertEquals(row.hex("iser.read_stag"), Integer.toUnsignedLong(iser.readStag()), where + ": read STag");
        assertEquals(row.hex("iser.read_base_offset"), iser.readVa(), where + ": read VA");
    }

    private static void checkIscsi(TsharkTsv.Row row, IscsiPdu pdu, String where) {
        assertEquals(row.hex("iscsi.opcode"), pdu.opcode().value(), where + ": opcode");
        assertEquals(row.hex("iscsi.initiatortasktag"), Integer.toUnsignedLong(pdu.header().itt()), where + ": ITT");
        assertEquals(row.number("iscsi.datasegmentlength"), pdu.data().length, where + ": DataSegmentLength");
        assertTrue(pdu.ahs().isEmpty(), where + ": no AHS");
        if (pdu.header() instanceof ScsiCommand cmd) {
            assertEquals(row.number("iscsi.scsicommand.expecteddatatransferlength"), cmd.edtl(), where + ": EDTL");
            String spc = row.get("scsi.spc.opcode");
            String scsiOpcode = spc.isEmpty() ? row.get("scsi_sbc.opcode") : spc;
            assertEquals(Long.parseLong(scsiOpcode.substring(2), 16), cmd.scsiOpcode(), where + ": CDB[0]");
        }
    }

    static Map<Integer, RoceSends.Send> sends(String capture) throws IOException {
        return RoceSends.read(TestVectors.path("iser/" + capture + ".pcap")).stream()
                .collect(Collectors.toMap(RoceSends.Send::frame, Function.identity(), (a, b) -> a, TreeMap::new));
    }

    static TsharkTsv tsv(String capture) throws IOException {
        return TsharkTsv.read(TestVectors.path("iser/" + capture + ".tsv"));
    }

    static IserPdu decode(byte[] payload) throws IscsiProtocolException {
        ByteBuf in = Unpooled.wrappedBuffer(payload);
        IserPdu pdu = IserPdu.decode(in, IscsiPdu.MAX_DATA_SEGMENT);
        assertFalse(in.isReadable());
        return pdu;
    }

    static byte[] encode(IserPdu pdu) {
        ByteBuf out = Unpooled.buffer();
        pdu.encode(out);
        assertEquals(pdu.wireLength(), out.readableBytes());
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }
}
