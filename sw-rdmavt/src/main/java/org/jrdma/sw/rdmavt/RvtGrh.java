package org.jrdma.sw.rdmavt;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.GlobalRoute;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.WcFlags;

/**
 * The 40-byte InfiniBand GRH (IBA 8.3, {@code struct ib_grh}) a UD receive finds in front of the payload when the
 * sender's address vector is global: IP version 6, traffic class and flow label from the AV, PayLen (the bytes after
 * the GRH up to and including the ICRC), next header 0x1B (IBA transport), hop limit, SGID, DGID. A packet engine
 * without packets ({@link RucLoopback}) writes it from the WQE.
 */
final class RvtGrh {
    static final int BYTES = WcFlags.GRH_BYTES;
    /** {@code IB_GRH_NEXT_HDR}. */
    static final int NEXT_HDR_IBA = 0x1b;
    /** BTH + DETH + ICRC around a UD payload. */
    private static final int UD_HEADERS = 12 + 8 + 4;

    private final byte[] bytes = new byte[BYTES];
    private final ByteBuffer view = ByteBuffer.wrap(bytes);

    /** Fills the header for a UD payload of {@code len} bytes (plus 4 of immediate data) from {@code sgid}. */
    Segments fill(GlobalRoute grh, Gid sgid, int len, boolean imm, Segments into) {
        int payLen = UD_HEADERS + (imm ? 4 : 0) + (len + 3 & ~3);
        view.putInt(0, 6 << 28 | (grh.trafficClass() & 0xff) << 20 | grh.flowLabel() & 0xfffff);
        view.putShort(4, (short) payLen);
        bytes[6] = NEXT_HDR_IBA;
        bytes[7] = (byte) grh.hopLimit();
        System.arraycopy(sgid.raw(), 0, bytes, 8, 16);
        System.arraycopy(grh.dgid().raw(), 0, bytes, 24, 16);
        into.wrap(view, BYTES);
        return into;
    }
}
