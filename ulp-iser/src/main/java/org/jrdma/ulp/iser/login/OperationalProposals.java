package org.jrdma.ulp.iser.login;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.ulp.iser.login.SessionParams.SessionType;
import org.jrdma.ulp.iser.pdu.TextKey;
import org.jrdma.ulp.iser.pdu.TextValue;

/**
 * The operational keys an initiator offers (open-iscsi's {@code iscsid.conf} node.session/node.conn settings).
 * {@link #openIscsiIser()} gives what open-iscsi sends over iSER (the captures' first Login Request).
 */
public record OperationalProposals(
        String headerDigest, String dataDigest, int defaultTime2Wait, int defaultTime2Retain,
        int errorRecoveryLevel, boolean initialR2t, boolean immediateData, int maxBurstLength,
        int firstBurstLength, int maxOutstandingR2t, int maxConnections, boolean dataPduInOrder,
        boolean dataSequenceInOrder, boolean rdmaExtensions, int initiatorRecvDataSegmentLength,
        int targetRecvDataSegmentLength, int maxRecvDataSegmentLength) {

    /** open-iscsi 2.1 over iSER (ib_iser): the values of the iser_session capture. */
    public static OperationalProposals openIscsiIser() {
        return new OperationalProposals("None", "None", 2, 0, 0, false, true, 16776192, 262144, 1, 1, true, true,
                true, 262144, 8192, 8192);
    }

    /**
     * The keys in open-iscsi's order: a Normal session over iSER offers no digests (iSER never uses them) and
     * the RDMA lengths; a discovery session (and iSCSI/TCP) offers the digests and MaxRecvDataSegmentLength.
     */
    List<TextKey> keys(SessionType type) {
        List<TextKey> k = new ArrayList<>();
        boolean normal = type == SessionType.NORMAL;
        boolean rdma = normal && rdmaExtensions;
        if (!rdma) {
            add(k, LoginKey.HEADER_DIGEST, headerDigest);
            add(k, LoginKey.DATA_DIGEST, dataDigest);
        }
        add(k, LoginKey.DEFAULT_TIME2WAIT, defaultTime2Wait);
        add(k, LoginKey.DEFAULT_TIME2RETAIN, defaultTime2Retain);
        add(k, LoginKey.IF_MARKER, "No");
        add(k, LoginKey.OF_MARKER, "No");
        add(k, LoginKey.ERROR_RECOVERY_LEVEL, errorRecoveryLevel);
        if (normal) {
            add(k, LoginKey.INITIAL_R2T, TextValue.bool(initialR2t));
            add(k, LoginKey.IMMEDIATE_DATA, TextValue.bool(immediateData));
            add(k, LoginKey.MAX_BURST_LENGTH, maxBurstLength);
            add(k, LoginKey.FIRST_BURST_LENGTH, firstBurstLength);
            add(k, LoginKey.MAX_OUTSTANDING_R2T, maxOutstandingR2t);
            add(k, LoginKey.MAX_CONNECTIONS, maxConnections);
            add(k, LoginKey.DATA_PDU_IN_ORDER, TextValue.bool(dataPduInOrder));
            add(k, LoginKey.DATA_SEQUENCE_IN_ORDER, TextValue.bool(dataSequenceInOrder));
        }
        if (rdma) {
            add(k, LoginKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH, initiatorRecvDataSegmentLength);
            add(k, LoginKey.TARGET_RECV_DATA_SEGMENT_LENGTH, targetRecvDataSegmentLength);
            add(k, LoginKey.RDMA_EXTENSIONS, "Yes");
        } else {
            add(k, LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH, maxRecvDataSegmentLength);
        }
        return k;
    }

    private static void add(List<TextKey> k, LoginKey key, Object value) {
        k.add(new TextKey(key.key(), value.toString()));
    }
}
