package org.jrdma.ulp.iser.pdu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.ulp.iser.capture.TcpStreams;
import org.jrdma.ulp.iser.capture.TsharkTsv;
import org.junit.jupiter.api.Test;

/**
 * The same session as {@code iser_session} over iSCSI/TCP (Linux iscsi_tcp <-> LIO): each direction's byte
 * stream splits into PDUs with padded data segments, in the order and with the opcode, ITT and
 * DataSegmentLength tshark shows, each re-encoding to its bytes; reads come back as Data-In with status.
 */
class IscsiTcpCaptureTest {
    private static final int ISCSI_PORT = 3260;

    private record Framed(IscsiPdu pdu, byte[] wire) {
    }

    private static List<Framed> split(byte[] stream) throws IscsiProtocolException {
        ByteBuf in = Unpooled.wrappedBuffer(stream);
        List<Framed> pdus = new ArrayList<>();
        while (in.isReadable()) {
            int start = in.readerIndex();
            IscsiPdu pdu = IscsiPdu.decode(in, IscsiPdu.Padding.REQUIRED, IscsiPdu.MAX_DATA_SEGMENT);
            byte[] wire = new byte[in.readerIndex() - start];
            in.getBytes(start, wire);
            pdus.add(new Framed(pdu, wire));
        }
        return pdus;
    }

    private static Map<String, byte[]> streams() throws Exception {
        return TcpStreams.read(TestVectors.path("iser/iscsi_tcp.pcap"), ISCSI_PORT);
    }

    @Test
    void everyPduOfBothStreamsDecodesAsTsharkAndEncodesBack() throws Exception {
        TsharkTsv tsv = TsharkTsv.read(TestVectors.path("iser/iscsi_tcp.tsv"));
        Map<String, byte[]> streams = streams();
        assertEquals(2, streams.size());
        int total = 0;
        for (Map.Entry<String, byte[]> s : streams.entrySet()) {
            List<TsharkTsv.Row> rows = tsv.rowsWith("iscsi.opcode").stream()
                    .filter(r -> r.get("ip.src").equals(s.getKey())).toList();
            List<Framed> pdus = split(s.getValue());
            assertEquals(rows.size(), pdus.size(), s.getKey() + ": PDUs");
            for (int i = 0; i < rows.size(); i++) {
                TsharkTsv.Row row = rows.get(i);
                IscsiPdu pdu = pdus.get(i).pdu();
                String where = "frame " + row.frame();
                assertEquals(row.hex("iscsi.opcode"), pdu.opcode().value(), where);
                assertEquals(row.hex("iscsi.initiatortasktag"), Integer.toUnsignedLong(pdu.header().itt()), where);
                assertEquals(row.number("iscsi.datasegmentlength"), pdu.data().length, where);
                ByteBuf out = Unpooled.buffer();
                pdu.encode(out);
                assertEquals(pdu.wireLength(), out.readableBytes());
                byte[] bytes = new byte[out.readableBytes()];
                out.readBytes(bytes);
                assertArrayEquals(pdus.get(i).wire(), bytes, where + ": re-encoded");
            }
            total += pdus.size();
        }
        assertEquals(82, total, "PDUs in iscsi_tcp (summary.txt)");
    }

    @Test
    void readsComeBackAsDataInWithStatus() throws Exception {
        List<DataIn> dataIn = new ArrayList<>();
        boolean sawLba2048 = false;
        for (byte[] stream : streams().values()) {
            for (Framed f : split(stream)) {
                if (f.pdu().header() instanceof DataIn d) {
                    dataIn.add(d);
                    assertEquals(f.pdu().data().length, f.wire().length - Bhs.LENGTH
                            - ((4 - f.pdu().data().length % 4) % 4));
                    if (f.pdu().data().length == 65536) {
                        sawLba2048 |= new String(f.pdu().data(), 0, 32, StandardCharsets.US_ASCII)
                                .contains("lba 00002048");
                    }
                }
            }
        }
        assertEquals(35, dataIn.size());
        for (DataIn d : dataIn) {
            assertTrue(d.fin() && d.statusPresent(), "one Data-In per read, carrying the status");
            assertEquals(ScsiResponse.GOOD, d.status());
            assertEquals(0, d.dataSn());
            assertEquals(0, d.bufferOffset());
        }
        assertTrue(sawLba2048, "the 64 KiB READ(10) at LBA 2048 returns the pattern written there");
    }
}
