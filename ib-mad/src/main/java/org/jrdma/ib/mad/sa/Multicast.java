package org.jrdma.ib.mad.sa;

/**
 * {@code struct ib_sa_multicast}: one join of one port to a group, from {@link SaClient#joinMulticast}
 * until {@link SaClient#leave} (or {@link #close()}).
 */
public interface Multicast extends AutoCloseable {
    /** The member record: what was asked for, then (after a successful join) what the SA answered. */
    MCMemberRecord rec();

    /** The component mask of the join. */
    long compMask();

    /** {@code ib_sa_free_multicast}: leaves the group (SubnAdmDelete) if the join succeeded. */
    @Override
    void close();

    /**
     * {@code callback(status, multicast)}: 0 when joined, else a negative errno (-EINVAL: the SA refused, or the
     * port's group does not match the components asked for). Later, -ENETRESET (-102) when a port event (PORT_ERR,
     * LID_CHANGE, SM_CHANGE, CLIENT_REREGISTER) ended the membership: the user joins again, as Linux's IPoIB does.
     */
    @FunctionalInterface
    interface Callback {
        void joined(int status, Multicast multicast);
    }
}
