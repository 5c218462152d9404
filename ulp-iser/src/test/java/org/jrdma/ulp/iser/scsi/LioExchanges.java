package org.jrdma.ulp.iser.scsi;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.ulp.iser.capture.Pcap;

/**
 * The SCSI exchanges of a Linux iSER capture (initiator: ib_iser + sd; target: LIO + isert): each SCSI Command
 * PDU with LIO's SCSI Response and the data-in LIO RDMA-wrote before it (isert posts the RDMA WRITE and then
 * the response SEND on the same QP, so the writes since the target's previous SEND belong to the response).
 */
final class LioExchanges {
    private static final int ISER_HEADER = 28;
    private static final int BTH = 12;
    private static final int RETH = 16;
    private static final int ICRC = 4;
    private static final int UDP = 8;

    /** One command and LIO's answer. */
    record Exchange(int frame, long lun, byte[] cdb, int edtl, int status, byte[] sense, byte[] dataIn,
                    int flags, int residual) {
        int opcode() {
            return cdb[0] & 0xff;
        }
    }

    private LioExchanges() {
    }

    static List<Exchange> read(String capture) throws IOException {
        Map<Integer, ByteBuffer> commands = new HashMap<>();
        Map<Integer, Integer> commandFrames = new HashMap<>();
        List<Exchange> out = new ArrayList<>();
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        String initiator = null;
        for (Pcap.IpPacket p : Pcap.read(TestVectors.path("iser/" + capture + ".pcap"))) {
            byte[] u = p.payload();
            if (p.protocol() != 17 || (ByteBuffer.wrap(u).getShort(2) & 0xffff) != 4791) {
                continue;
            }
            int opcode = u[UDP] & 0xff;
            int pad = u[UDP + 1] >> 4 & 3;
            int start = UDP + BTH;
            int end = u.length - pad - ICRC;
            if (opcode == 10 || opcode == 6) { // RDMA WRITE Only / First: RETH
                written.write(u, start + RETH, end - start - RETH);
            } else if (opcode == 7 || opcode == 8) { // RDMA WRITE Middle / Last
                written.write(u, start, end - start);
            } else if (opcode == 4 || opcode == 23 || opcode == 0) { // SEND Only / Only with Invalidate / First
                int ieth = opcode == 23 ? 4 : 0;
                ByteBuffer bhs = ByteBuffer.wrap(u, start + ieth + ISER_HEADER, end - start - ieth - ISER_HEADER)
                        .slice();
                int iscsi = bhs.get(0) & 0x3f;
                int itt = bhs.getInt(16);
                if (iscsi == 0x01) {
                    initiator = p.src();
                    commands.put(itt, bhs);
                    commandFrames.put(itt, p.frame());
                    written.reset();
                } else if (iscsi == 0x21 && !p.src().equals(initiator) && commands.containsKey(itt)) {
                    out.add(exchange(commandFrames.get(itt), commands.remove(itt), bhs, written.toByteArray()));
                    written.reset();
                }
            }
        }
        return out;
    }

    private static Exchange exchange(int frame, ByteBuffer cmd, ByteBuffer rsp, byte[] dataIn) {
        byte[] cdb = new byte[16];
        cmd.get(32, cdb);
        int segment = rsp.getInt(4) & 0xffffff;
        byte[] sense = new byte[0];
        if (segment >= 2) {
            int senseLength = rsp.getShort(48) & 0xffff;
            sense = new byte[senseLength];
            rsp.get(50, sense);
        }
        return new Exchange(frame, cmd.getLong(8), cdb, cmd.getInt(20), rsp.get(3) & 0xff, sense, dataIn,
                rsp.get(1) & 0xff, rsp.getInt(44));
    }
}
