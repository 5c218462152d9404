package org.jrdma.ib.mad.sa;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;

/**
 * The SA client of the MAD layer ({@code ib_sa_client}): queries go to the SA at the port's SM LID
 * (SL: the port's SM SL), on QP1 with the GSI Q_Key. Futures complete on the MAD thread; a failed one
 * completes exceptionally with an {@link SaException}.
 */
public interface SaClient {
    /** Management class SubnAdm and its version. */
    int MGMT_CLASS = 0x03;
    int CLASS_VERSION = 2;

    /**
     * {@code ib_sa_path_rec_get} as the RDMA CM calls it: SubnAdmGet(PathRecord) with DGID, SGID,
     * P_Key 0xffff, NumbPath 1 and Reversible (component mask as {@code cma_query_ib_route}).
     */
    CompletableFuture<PathRecord> pathRecordGet(IbDevice device, int port, Gid sgid, Gid dgid, int timeoutMs);

    /** SubnAdmGetTable(PathRecord) with the caller's template and component mask. */
    CompletableFuture<List<PathRecord>> pathRecords(IbDevice device, int port, PathRecord rec, long compMask,
            int timeoutMs);

    /** SubnAdmGetTable(NodeRecord): every port the SM knows (compMask 0) or those matching the template. */
    CompletableFuture<List<NodeRecord>> nodeRecords(IbDevice device, int port, NodeRecord rec, long compMask,
            int timeoutMs);

    /** SubnAdmGetTable(MCMemberRecord). */
    CompletableFuture<List<MCMemberRecord>> mcMemberRecords(IbDevice device, int port, MCMemberRecord rec,
            long compMask, int timeoutMs);

    /**
     * Any SA query (what {@code saquery} and {@code sa_query} of ibdiag do): method Get, Set, GetTable
     * or Delete of {@code attrId} with the record bytes and component mask; the answer's records, each
     * of the attribute's size rounded up to 8 (AttributeOffset).
     */
    CompletableFuture<List<byte[]>> query(IbDevice device, int port, int method, int attrId, long attrMod,
            long compMask, byte[] record, int timeoutMs);

    /**
     * {@code ib_sa_join_multicast}: SubnAdmSet(MCMemberRecord) for {@code rec} (its PortGID is filled in
     * with the port's GID 0 if zero; a zero MGID asks the SA to create a group with an MGID of its
     * choice). The callback runs once with the outcome; {@link Multicast#rec()} then holds the SA's record.
     */
    Multicast joinMulticast(IbDevice device, int port, MCMemberRecord rec, long compMask, Multicast.Callback callback);

    /**
     * {@code ib_sa_free_multicast}: the member leaves. Joins of one port to one MGID share the port's SA membership
     * ({@code core/multicast.c}): a join whose JoinState the port already holds is answered without the SA, and a leave
     * sends SubnAdmDelete only for the JoinState bits no other local member holds; the future completes with the SA's
     * answer, or at once with the member's record when nothing had to go to the SA. Leaving twice fails (-EINVAL).
     */
    CompletableFuture<MCMemberRecord> leave(Multicast multicast);
}
